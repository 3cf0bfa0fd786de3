// What the source release lacks to be buildable, as a reviewer checks first: build instructions, Makefiles and build scripts, the kernel's configuration, the toolchain, and each item of the vendor's own list of what ships without source (proprietary.sh); present false marks a gap (docs/sources.md).
MATCH (r:Release {firmware: $firmware})
MATCH (g:ReleaseGap {firmware: $firmware})
RETURN r.name AS release, g.kind AS kind, g.present AS present, g.detail AS detail
ORDER BY kind, detail;
