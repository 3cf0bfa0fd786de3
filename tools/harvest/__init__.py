"""The pieces of ``tools/harvest_names.py``: each source's reader, and the table they make together."""
