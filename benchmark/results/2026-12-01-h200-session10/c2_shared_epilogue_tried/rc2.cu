// Mimics the kernel: each half syncs on its own named barrier (id in a register, 128 threads),
// then both on barrier 3 (256), then each reads the other half's writes.
#include <cstdio>
#include <cstdlib>
__global__ void __launch_bounds__(384, 1) k(float* out, int mode) {
  __shared__ float s[256];
  const int t = threadIdx.x;
  if (t < 128) return;
  const int u = t - 128, half = u / 128;
  s[u] = float(u);
  if (mode == 0) {  // register barrier id, as the kernel's stage() does
    const int id = 1 + half;
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(128) : "memory");
  } else if (mode == 3 || mode == 4) {  // only half 0 syncs on its own barrier (once / twice), as a consumer with no rows skips staging
    if (half == 0) {
      const int id = 1;
      asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(128) : "memory");
      if (mode == 4) asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(128) : "memory");
    }
  } else if (mode == 1) {  // constant ids
    if (half == 0)
      asm volatile("bar.sync 1, 128;\n" ::: "memory");
    else
      asm volatile("bar.sync 2, 128;\n" ::: "memory");
  }
  asm volatile("bar.sync 3, 256;\n" ::: "memory");
  out[u] = s[255 - u];
  asm volatile("bar.sync 3, 256;\n" ::: "memory");
  s[u] = 3.f * u;  // a second round through barrier 3, as the epilogue's nodes do
  asm volatile("bar.sync 3, 256;\n" ::: "memory");
  out[256 + u] = s[255 - u];
}
int main(int argc, char** argv) {
  float* o;
  cudaMalloc(&o, 512 * 4);
  const int mode = atoi(argv[1]);
  k<<<1, 384>>>(o, mode);
  printf("mode %d: %s\n", mode, cudaGetErrorString(cudaDeviceSynchronize()));
}
