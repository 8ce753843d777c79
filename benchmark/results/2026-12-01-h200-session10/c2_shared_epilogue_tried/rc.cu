// Does racecheck honour a named barrier of 256 threads shared by warps 4..11 of a 384-thread CTA?
#include <cstdio>
__global__ void __launch_bounds__(384, 1) k(float* out, int mode) {
  __shared__ float s[256];
  const int t = threadIdx.x;
  if (t < 128) {  // "producer" warpgroup: mode 2 keeps lane 0 of warp 0 busy, as a TMA producer would be
    if (mode == 2 && t == 0) {
      const long long start = clock64();
      while (clock64() - start < 2000000) {
      }
      out[300] = 1.f;
    }
    if (mode == 3 && t < 32) {  // the whole producer warp stays, lanes 1..31 parked at a warp barrier
      const long long start = clock64();
      while (clock64() - start < 2000000) {
      }
      __syncwarp();
    }
    return;
  }
  const int u = t - 128;
  s[u] = float(u);
  if (mode != 1) asm volatile("bar.sync 3, 256;\n" ::: "memory");
  out[u] = s[255 - u];  // read what the other half wrote
  asm volatile("bar.sync 3, 256;\n" ::: "memory");
  s[u] = 2.f * u;      // overwrite after everyone read
  asm volatile("bar.sync 3, 256;\n" ::: "memory");
  out[u] += s[(u + 128) % 256];
}
#include <cstdlib>
int main(int argc, char** argv) {
  float* o;
  cudaMalloc(&o, 512 * 4);
  for (int mode = atoi(argv[1]); mode <= atoi(argv[1]); ++mode) {
    k<<<1, 384>>>(o, mode);
    printf("mode %d (%s): %s\n", mode, mode == 1 ? "without first barrier" : "with barrier",
           cudaGetErrorString(cudaDeviceSynchronize()));
  }
}
