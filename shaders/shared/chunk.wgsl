// Elements (scan) or keys (radix) per invocation; src/gpu/kernels/pipelines.rs sets it per adapter.
override CHUNK: u32 = 2u;
