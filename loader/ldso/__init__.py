"""The dynamic loader emulated: per-libc flavours, search paths, ld.so.cache and
ld.so.conf, link maps, symbol bindings, prelink.
"""
