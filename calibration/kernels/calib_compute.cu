// Arithmetic throughput: FMA chains in FP32, FP16 (half2) and BF16 (bfloat162) over an iteration
// sweep, and a tensor-core GEMM in FP16 and BF16: cuBLAS (cublasGemmEx, loaded with dlopen so the
// executable needs only the CUDA runtime) when present, else a WMMA kernel. Results are checked
// against a float64 reference on the host for a few elements.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <dlfcn.h>
#include <mma.h>

#include <cmath>

#include "calib.cuh"

namespace calib {
namespace {

constexpr int FMA_CHAINS = 8;

template <class T>
__device__ __forceinline__ T fma_op(T a, T b, T c);
template <>
__device__ __forceinline__ float fma_op<float>(float a, float b, float c) {
  return fmaf(a, b, c);
}
template <>
__device__ __forceinline__ __half2 fma_op<__half2>(__half2 a, __half2 b, __half2 c) {
  return __hfma2(a, b, c);
}
template <>
__device__ __forceinline__ __nv_bfloat162 fma_op<__nv_bfloat162>(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) {
  return __hfma2(a, b, c);
}
template <class T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ float from_float<float>(float x) {
  return x;
}
template <>
__device__ __forceinline__ __half2 from_float<__half2>(float x) {
  return __float2half2_rn(x);
}
template <>
__device__ __forceinline__ __nv_bfloat162 from_float<__nv_bfloat162>(float x) {
  return __float2bfloat162_rn(x);
}
template <class T>
__device__ __forceinline__ float to_float(T x);
template <>
__device__ __forceinline__ float to_float<float>(float x) {
  return x;
}
template <>
__device__ __forceinline__ float to_float<__half2>(__half2 x) {
  return __low2float(x) + __high2float(x);
}
template <>
__device__ __forceinline__ float to_float<__nv_bfloat162>(__nv_bfloat162 x) {
  return __low2float(x) + __high2float(x);
}

// FMA_CHAINS independent dependency chains per thread, `iters` FMAs each; inputs from memory so
// nothing folds at compile time. Values stay bounded (a x b with |b| < 1, plus c).
template <class T>
__global__ void fma_kernel(const float* __restrict__ in, int iters, float* out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  T acc[FMA_CHAINS];
#pragma unroll
  for (int k = 0; k < FMA_CHAINS; ++k) acc[k] = from_float<T>(in[(t * FMA_CHAINS + k) & 4095]);
  const T b = from_float<T>(0.999f * in[4096]);
  const T c = from_float<T>(0.001f * in[4097]);
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < FMA_CHAINS; ++k) acc[k] = fma_op(acc[k], b, c);
  }
  float s = 0;
#pragma unroll
  for (int k = 0; k < FMA_CHAINS; ++k) s += to_float(acc[k]);
  out[t] = s;
}

// WMMA GEMM (fallback when cuBLAS is absent): C[m x n] = A[m x k] B[k x n], column-major like
// cuBLAS, FP32 accumulate. Each warp computes a 32 x 32 tile from fragments loaded from global memory.
template <class T>
__global__ void wmma_gemm(const T* __restrict__ A, const T* __restrict__ B, T* __restrict__ C, int m, int n, int k) {
  using namespace nvcuda;
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int tiles_m = m / 32;
  const int tm = warp % tiles_m, tn = warp / tiles_m;
  if (tn * 32 >= n) return;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.f);
  wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::col_major> a[2];
  wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> b[2];
  for (int kk = 0; kk < k; kk += 16) {
#pragma unroll
    for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(a[i], A + (tm * 32 + i * 16) + size_t(kk) * m, m);
#pragma unroll
    for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(b[j], B + kk + size_t(tn * 32 + j * 16) * k, k);
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
  }
  // FP32 accumulators through a per-warp staging tile in shared memory, converted to T on the way out.
  __shared__ float stage[8][16 * 16];
  float* tile = stage[(threadIdx.x / 32) % 8];
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      wmma::store_matrix_sync(tile, acc[i][j], 16, wmma::mem_col_major);
      __syncwarp();
      for (int e = lane; e < 256; e += 32) {
        const int r = e % 16, col = e / 16;
        C[(tm * 32 + i * 16 + r) + size_t(tn * 32 + j * 16 + col) * m] = static_cast<T>(tile[e]);
      }
      __syncwarp();
    }
}

template <class T>
__global__ void fill_matrix(T* p, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = static_cast<T>(hash_uniform(seed, i) * 2.f - 1.f);
}
template <class T>
__global__ void poison(T* p, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = static_cast<T>(12345.f);
}

// Host copy of the rounding the device does in fill_matrix (float -> fp16/bf16 -> float).
float round_to(float x, bool bf16) {
  if (bf16) return __bfloat162float(__float2bfloat16(x));
  return __half2float(__float2half(x));
}

// cuBLAS through dlopen: the few entry points and enum values we use (cublas_api.h, library_types.h).
struct Cublas {
  void* lib = nullptr;
  void* handle = nullptr;
  int (*create)(void**) = nullptr;
  int (*destroy)(void*) = nullptr;
  int (*set_stream)(void*, cudaStream_t) = nullptr;
  int (*gemm_ex)(void*, int, int, int, int, int, const void*, const void*, int, int, const void*, int, int, const void*,
                 void*, int, int, int, int) = nullptr;
  std::string version;
  bool load() {
    // $GTW_CUBLAS first (run-on-gpu.sh sets it to the library it found), then the loader's path.
    const char* env = std::getenv("GTW_CUBLAS");
    for (const char* name : {env ? env : "", "libcublas.so.13", "libcublas.so.12", "libcublas.so",
                             "/usr/local/cuda/lib64/libcublas.so.13", "/usr/local/cuda/lib64/libcublas.so"}) {
      if (!*name) continue;
      lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (lib) {
        version = name;
        break;
      }
    }
    if (!lib) return false;
    create = reinterpret_cast<decltype(create)>(dlsym(lib, "cublasCreate_v2"));
    destroy = reinterpret_cast<decltype(destroy)>(dlsym(lib, "cublasDestroy_v2"));
    set_stream = reinterpret_cast<decltype(set_stream)>(dlsym(lib, "cublasSetStream_v2"));
    gemm_ex = reinterpret_cast<decltype(gemm_ex)>(dlsym(lib, "cublasGemmEx"));
    if (!create || !destroy || !set_stream || !gemm_ex || create(&handle) != 0) return false;
    return true;
  }
  ~Cublas() {
    if (handle && destroy) destroy(handle);
  }
};
constexpr int CUBLAS_OP_N = 0;
constexpr int CUDA_R_16F_ = 2;
constexpr int CUDA_R_16BF_ = 14;
constexpr int CUBLAS_COMPUTE_32F_ = 68;
constexpr int CUBLAS_GEMM_DEFAULT_ = -1;

template <class T>
void gemm_case(Context& c, Cublas* blas, bool bf16) {
  const int n = c.quick ? 8192 : 16384;
  const size_t elems = size_t(n) * n;
  T *A = nullptr, *B = nullptr, *C = nullptr;
  CK(cudaMalloc(&A, elems * sizeof(T)));
  CK(cudaMalloc(&B, elems * sizeof(T)));
  CK(cudaMalloc(&C, elems * sizeof(T)));
  const bool use_blas = blas != nullptr;
  auto& e = c.add(bf16 ? "gemm.bf16" : "gemm.fp16", "s");
  e.num("m", n).num("n", n).num("k", n).num("flops", 2.0 * n * double(n) * n);
  e.str("impl", use_blas ? "cublasGemmEx (" + blas->version + "), FP32 accumulate" : "WMMA 16x16x16, FP32 accumulate");
  e.str("method", "fresh random inputs (hash of a new seed) before every timed product, events around the product");
  uint64_t seed = bf16 ? 1000 : 2000;
  auto launch = [&] {
    if (use_blas) {
      const float alpha = 1.f, beta = 0.f;
      const int dt = bf16 ? CUDA_R_16BF_ : CUDA_R_16F_;
      const int st = blas->gemm_ex(blas->handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, A, dt, n, B, dt, n, &beta,
                                   C, dt, n, CUBLAS_COMPUTE_32F_, CUBLAS_GEMM_DEFAULT_);
      if (st != 0) {
        std::fprintf(stderr, "cublasGemmEx failed: status %d\n", st);
        std::exit(EXIT_CUDA);
      }
    } else {
      const int warps = (n / 32) * (n / 32);
      wmma_gemm<T><<<warps / 8, 256>>>(A, B, C, n, n, n);
    }
  };
  auto fresh = [&](int i) {
    fill_matrix<T><<<1024, 256>>>(A, elems, seed + 2 * i);
    fill_matrix<T><<<1024, 256>>>(B, elems, seed + 2 * i + 1);
    poison<T><<<1024, 256>>>(C, elems);
  };
  if (use_blas && blas->set_stream(blas->handle, 0) != 0) {
    std::fprintf(stderr, "cublasSetStream failed\n");
    std::exit(EXIT_CUDA);
  }
  const int warm = 3;
  const int reps = c.reps(10, 30);
  e.add("t") = time_events(warm, reps, 0, launch, fresh);
  // Check the last product on a few elements against float64 on the host.
  const uint64_t last = seed + 2 * (warm + reps - 1);
  double max_rel = 0;
  for (int probe = 0; probe < 8; ++probe) {
    const int i = (probe * 977) % n, j = (probe * 1531 + 7) % n;
    double ref = 0, mag = 0;
    for (int l = 0; l < n; ++l) {
      const double a = round_to(hash_uniform(last, size_t(i) + size_t(l) * n) * 2.f - 1.f, bf16);
      const double b = round_to(hash_uniform(last + 1, size_t(l) + size_t(j) * n) * 2.f - 1.f, bf16);
      ref += a * b;
      mag += std::fabs(a * b);
    }
    T got;
    CK(cudaMemcpy(&got, C + i + size_t(j) * n, sizeof(T), cudaMemcpyDeviceToHost));
    const double g = double(static_cast<float>(got));
    max_rel = std::fmax(max_rel, std::fabs(g - ref) / std::fmax(mag / std::sqrt(double(n)), 1e-30));
  }
  e.num("check_max_rel_error", max_rel);
  log(c, "%s GEMM %d^3 (%s): checked, max relative error %.2e", bf16 ? "BF16" : "FP16", n, use_blas ? "cuBLAS" : "WMMA",
      max_rel);
  CK(cudaFree(A));
  CK(cudaFree(B));
  CK(cudaFree(C));
}

template <class T>
void fma_case(Context& c, const char* name, double flops_per_fma) {
  float *in = nullptr, *out = nullptr;
  const int block = 256, grid = c.sms * 8;
  CK(cudaMalloc(&in, 8192 * sizeof(float)));
  CK(cudaMalloc(&out, size_t(grid) * block * sizeof(float)));
  for (int iters : {1024, 2048, 4096, 8192}) {
    auto& e = c.add(name, "s");
    const double flops = double(grid) * block * FMA_CHAINS * iters * flops_per_fma;
    e.num("iters", iters).num("chains", FMA_CHAINS).num("grid", grid).num("block", block).num("flops", flops);
    e.str("method", "independent FMA chains per thread, fresh random inputs per launch");
    int k = 0;
    e.add("t") = time_events(
        2, c.reps(10, 30), 0, [&] { fma_kernel<T><<<grid, block>>>(in, iters, out); },
        [&](int) { fill_random(in, 8192, 77 + k++, 0.5f, 1.f); });
  }
  CK(cudaFree(in));
  CK(cudaFree(out));
}

}  // namespace

void run_compute(Context& c) {
  fma_case<float>(c, "compute.fp32", 2.0);
  fma_case<__half2>(c, "compute.fp16", 4.0);
  fma_case<__nv_bfloat162>(c, "compute.bf16", 4.0);
  log(c, "FMA chains done");
  Cublas blas;
  const bool have_blas = blas.load();
  if (!have_blas) c.skipped.push_back("cuBLAS: not found (dlopen libcublas.so.13/.12), WMMA GEMM used instead");
  gemm_case<__half>(c, have_blas ? &blas : nullptr, false);
  gemm_case<__nv_bfloat16>(c, have_blas ? &blas : nullptr, true);
}

}  // namespace calib
