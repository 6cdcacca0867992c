// DRAM bandwidth against the length of the runs its traffic comes in (docs/MODEL.md section 13): calRuns
// reads or writes a buffer of 2^27 floats (512 MiB, four times the calibration's on an H100) in runs of k
// contiguous words, the runs in flight together far apart (run r at (r x stride) mod runs, stride odd and
// about 0.618 x runs), L2 flushed before each timed launch, for runs of 32 bytes to 16 KiB. Standalone, so
// that the question can be asked of a GPU without warpscope:
//   nvcc -O3 -o dram-runs scripts/dram-runs.cu && ./dram-runs
// Prints one line per run length and direction: bytes per run, GB/s (median of 5), and the ratio to a
// contiguous pass in the same direction.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../tests/programs/check.h"

// calRuns, the calibration's own microbenchmark (kernels/calibrate.cu).
#include "../kernels/calibrate.cu"

int main()
{
    const int logN = 27;
    float *buf, *flush;
    int sms, l2;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    CHECK(cudaMalloc(&buf, sizeof(float) << logN));
    CHECK(cudaMalloc(&flush, 2 * (size_t)l2));
    CHECK(cudaMemset(buf, 0, sizeof(float) << logN));
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    double whole[2] = {0, 0};
    int logKs[] = {logN, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    for (int logK : logKs) {
        for (int write = 0; write < 2; ++write) {
            int logRuns = logN - logK;
            unsigned runsN = 1u << logRuns;
            unsigned stride = std::max(1u, (unsigned)(0.618034 * runsN)) | 1u;
            std::vector<float> ms;
            for (int i = 0; i < 6; ++i) {
                CHECK(cudaMemset(flush, i, 2 * (size_t)l2));
                CHECK(cudaEventRecord(a));
                calRuns<<<sms * 8, 256>>>(buf, logRuns, logK, stride, write);
                CHECK(cudaGetLastError());
                CHECK(cudaEventRecord(b));
                CHECK(cudaEventSynchronize(b));
                float t;
                CHECK(cudaEventElapsedTime(&t, a, b));
                if (i > 0) ms.push_back(t);
            }
            std::sort(ms.begin(), ms.end());
            double gbs = (4.0 * (1u << logN)) / (ms[ms.size() / 2] * 1e-3) / 1e9;
            if (logK == logN) whole[write] = gbs;
            printf("%s run %8u B  %8.1f GB/s  %.3f of contiguous\n", write ? "write" : "read ", 4u << logK, gbs,
                   gbs / whole[write]);
        }
    }
    return 0;
}
