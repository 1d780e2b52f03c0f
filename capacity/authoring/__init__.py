"""The authoring layer (ARCHITECTURE.md)."""
