// Kernels run twice with the same loop: WRITE = false counts, the scan makes offsets, WRITE = true
// writes at them. src/gpu/kernels/pipelines.rs builds both pipelines from one source.
override WRITE: bool = false;
