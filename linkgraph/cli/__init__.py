"""The ``linkgraph`` command: it sits above every stage and imports them; nothing
imports it.
"""
