"""Reading ELF files as the dynamic loaders read them: headers, the mapped image, the
dynamic array, symbols, versions, relocations and the anomalies a loader would stumble on.
"""
