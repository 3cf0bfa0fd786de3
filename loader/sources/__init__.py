"""The source-release check (docs/sources.md): a vendor's GPL source release indexed once (``index``,
cached by its content in ``cache``), and each module of a scanned firmware matched against it in tiers
(``match``): the same bytes, its strings and exported functions in one source folder, with a source
status per module, the build-file lines that link a library, and what the release lacks to be built."""
