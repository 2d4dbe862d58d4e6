"""Checks of each game: one pure vectorized function per rule code."""
