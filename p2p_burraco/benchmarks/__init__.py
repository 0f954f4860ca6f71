"""Benchmarks behind `p2p-burraco bench`: each prints its figures."""
