"""The io layer (ARCHITECTURE.md)."""
