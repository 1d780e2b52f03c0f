"""Capacity Lab engine: a faithful Python model of Volcano's queue scheduling logic."""
