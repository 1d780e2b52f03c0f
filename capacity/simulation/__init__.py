"""The simulation layer (ARCHITECTURE.md)."""
