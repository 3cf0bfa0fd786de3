"""The read side, free of any web framework: what one file uses and provides,
licence findings, the JSON report. The CLI and the viewer both use it.
"""
