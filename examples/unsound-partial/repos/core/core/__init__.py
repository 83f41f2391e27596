"""Shared helpers of the du-lite tools."""
