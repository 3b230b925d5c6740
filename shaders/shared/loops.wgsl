// Whether this invocation's loops were ended early. Mesa's software adapters (llvmpipe,
// lavapipe) end every loop of an invocation once its loops have run 65,535 iterations in all,
// silently; from then on each loop runs its first iteration only. So a loop of `two` iterations
// (a uniform 2, which no compiler can unroll) that runs one tells, at the end of a kernel, that
// some loop before it was cut short. Its count grows as r * r + 1 (1, then 2), which no
// compiler can work out without running the loop. Kernels whose loops have no fixed bound flag
// it for the host.
fn loops_cut(two: u32) -> bool {
    var runs = 0u;
    for (var k = 0u; k < two; k++) {
        runs = runs * runs + 1u;
    }
    return runs < two;
}
