"""Streamlit glue shared by the pages: session state and, later, cached loaders and callbacks.

The engine lives in `capacity/` and never imports Streamlit; this package is where the two meet.
"""
