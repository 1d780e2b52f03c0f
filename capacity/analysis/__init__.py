"""The analysis layer (ARCHITECTURE.md)."""
