// The kernels the firmware's kernel modules load into: where each one's exports were read from (Module.symvers, vmlinux, kernel-image, none), how many, and what was found or why nothing was.
MATCH (k:Kernel {firmware: $firmware})
RETURN k.version AS version, k.source AS source, k.exports_from AS exports_from, k.exports AS exports, k.detail AS detail
ORDER BY version;
