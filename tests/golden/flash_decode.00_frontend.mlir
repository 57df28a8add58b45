builtin.module {
  func.func @flash_decode(%q: memref<2x2x1x64xbf16>, %k: memref<2x2x256x64xbf16>, %v: memref<2x2x256x64xbf16>, %out: memref<2x2x1x64xbf16>) attributes {loom.source = "examples/flash_decode.py", loom.outputs = ["out"]} {
    %0 = arith.constant 1 : index
    %tile_n = loom.sym @tile_n {upper_bound = 256 : i64, reduction, masked} : index
    %1 = arith.constant 2 : index
    "affine.parallel"(%1, %1) <{reductions = [], lowerBoundsMap = affine_map<() -> (0, 0)>, lowerBoundsGroups = dense<1> : vector<2xi32>, upperBoundsMap = affine_map<()[s0, s1] -> (s0, s1)>, upperBoundsGroups = dense<1> : vector<2xi32>, steps = [1 : i64, 1 : i64]}> ({
    ^bb0(%b_idx: index, %h_idx: index):
      %2 = tensor.empty() : tensor<1xf32>
      %3 = arith.constant 0xff800000 : f32
      %m_i = linalg.fill {loom.loc = "flash_decode.py:26"} ins(%3 : f32) outs(%2 : tensor<1xf32>) -> tensor<1xf32>
      %4 = tensor.empty() : tensor<1xf32>
      %5 = arith.constant 0.000000e+00 : f32
      %l_i = linalg.fill {loom.loc = "flash_decode.py:27"} ins(%5 : f32) outs(%4 : tensor<1xf32>) -> tensor<1xf32>
      %6 = tensor.empty() : tensor<1x64xf32>
      %7 = arith.constant 0.000000e+00 : f32
      %acc = linalg.fill {loom.loc = "flash_decode.py:28"} ins(%7 : f32) outs(%6 : tensor<1x64xf32>) -> tensor<1x64xf32>
      %8 = memref.subview %q[%b_idx, %h_idx, 0, 0] [1, 1, 1, 64] [1, 1, 1, 1] {loom.loc = "flash_decode.py:29"} : memref<2x2x1x64xbf16> to memref<1x64xbf16, strided<[64, 1], offset: ?>>
      %q_blk = loom.read %8 {loom.loc = "flash_decode.py:29"} : memref<1x64xbf16, strided<[64, 1], offset: ?>> -> tensor<1x64xbf16>
      %9 = arith.constant 256 : index
      %10 = arith.ceildivui %9, %tile_n : index
      %11 = arith.constant 0 : index
      %m_i_1, %l_i_1, %acc_1 = scf.for %tile_n_idx = %11 to %10 step %0 iter_args(%m_i_2 = %m_i, %l_i_2 = %l_i, %acc_2 = %acc) -> (tensor<1xf32>, tensor<1xf32>, tensor<1x64xf32>) {
        %12 = arith.muli %tile_n_idx, %tile_n : index
        %13 = memref.subview %k[%b_idx, %h_idx, %12, 0] [1, 1, %tile_n, 64] [1, 1, 1, 1] {loom.loc = "flash_decode.py:31"} : memref<2x2x256x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
        %k_blk = loom.read %13 {loom.loc = "flash_decode.py:31"} : memref<?x64xbf16, strided<[64, 1], offset: ?>> -> tensor<?x64xbf16>
        %14 = memref.subview %v[%b_idx, %h_idx, %12, 0] [1, 1, %tile_n, 64] [1, 1, 1, 1] {loom.loc = "flash_decode.py:32"} : memref<2x2x256x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
        %v_blk = loom.read %14 {loom.loc = "flash_decode.py:32"} : memref<?x64xbf16, strided<[64, 1], offset: ?>> -> tensor<?x64xbf16>
        %15 = tensor.empty(%tile_n) : tensor<64x?xbf16>
        %permute = linalg.transpose ins(%k_blk:tensor<?x64xbf16>) outs(%15:tensor<64x?xbf16>) permutation = [1, 0]
        %16 = tensor.empty(%tile_n) : tensor<1x?xf32>
        %17 = arith.constant 0.000000e+00 : f32
        %mm_init = linalg.fill {loom.loc = "flash_decode.py:33"} ins(%17 : f32) outs(%16 : tensor<1x?xf32>) -> tensor<1x?xf32>
        %mm = linalg.matmul {loom.loc = "flash_decode.py:33"} ins(%q_blk, %permute : tensor<1x64xbf16>, tensor<64x?xbf16>) outs(%mm_init : tensor<1x?xf32>) -> tensor<1x?xf32>
        %18 = arith.constant 1.250000e-01 : f32
        %19 = tensor.empty(%tile_n) : tensor<1x?xf32>
        %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<1x?xf32>) outs(%19 : tensor<1x?xf32>) attrs =  {loom.loc = "flash_decode.py:33"} {
        ^bb0(%20: f32, %21: f32):
          %22 = arith.mulf %20, %18 : f32
          linalg.yield %22 : f32
        } -> tensor<1x?xf32>
        %23 = tensor.empty() : tensor<1xf32>
        %24 = arith.constant 0xff800000 : f32
        %amax_init = linalg.fill {loom.loc = "flash_decode.py:34"} ins(%24 : f32) outs(%23 : tensor<1xf32>) -> tensor<1xf32>
        %amax = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<1x?xf32>) outs(%amax_init : tensor<1xf32>) attrs =  {loom.loc = "flash_decode.py:34"} {
        ^bb0(%25: f32, %26: f32):
          %27 = arith.maximumf %25, %26 : f32
          linalg.yield %27 : f32
        } -> tensor<1xf32>
        %28 = tensor.empty() : tensor<1xf32>
        %m_new = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%m_i_2, %amax : tensor<1xf32>, tensor<1xf32>) outs(%28 : tensor<1xf32>) attrs =  {loom.loc = "flash_decode.py:34"} {
        ^bb0(%29: f32, %30: f32, %31: f32):
          %32 = arith.maximumf %29, %30 : f32
          linalg.yield %32 : f32
        } -> tensor<1xf32>
        %33 = tensor.empty(%tile_n) : tensor<1x?xf32>
        %sub = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%s, %m_new : tensor<1x?xf32>, tensor<1xf32>) outs(%33 : tensor<1x?xf32>) attrs =  {loom.loc = "flash_decode.py:35"} {
        ^bb0(%34: f32, %35: f32, %36: f32):
          %37 = arith.subf %34, %35 : f32
          linalg.yield %37 : f32
        } -> tensor<1x?xf32>
        %38 = tensor.empty(%tile_n) : tensor<1x?xf32>
        %exp = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%sub : tensor<1x?xf32>) outs(%38 : tensor<1x?xf32>) attrs =  {loom.loc = "flash_decode.py:35"} {
        ^bb0(%39: f32, %40: f32):
          %41 = math.exp %39 : f32
          linalg.yield %41 : f32
        } -> tensor<1x?xf32>
        %42 = tensor.empty() : tensor<1xf32>
        %sub_1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%m_i_2, %m_new : tensor<1xf32>, tensor<1xf32>) outs(%42 : tensor<1xf32>) attrs =  {loom.loc = "flash_decode.py:36"} {
        ^bb0(%43: f32, %44: f32, %45: f32):
          %46 = arith.subf %43, %44 : f32
          linalg.yield %46 : f32
        } -> tensor<1xf32>
        %47 = tensor.empty() : tensor<1xf32>
        %alpha = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%sub_1 : tensor<1xf32>) outs(%47 : tensor<1xf32>) attrs =  {loom.loc = "flash_decode.py:36"} {
        ^bb0(%48: f32, %49: f32):
          %50 = math.exp %48 : f32
          linalg.yield %50 : f32
        } -> tensor<1xf32>
        %51 = tensor.empty() : tensor<1xf32>
        %mul = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%l_i_2, %alpha : tensor<1xf32>, tensor<1xf32>) outs(%51 : tensor<1xf32>) attrs =  {loom.loc = "flash_decode.py:37"} {
        ^bb0(%52: f32, %53: f32, %54: f32):
          %55 = arith.mulf %52, %53 : f32
          linalg.yield %55 : f32
        } -> tensor<1xf32>
        %56 = tensor.empty() : tensor<1xf32>
        %57 = arith.constant 0.000000e+00 : f32
        %sum_1_init = linalg.fill {loom.loc = "flash_decode.py:37"} ins(%57 : f32) outs(%56 : tensor<1xf32>) -> tensor<1xf32>
        %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%exp : tensor<1x?xf32>) outs(%sum_1_init : tensor<1xf32>) attrs =  {loom.loc = "flash_decode.py:37"} {
        ^bb0(%58: f32, %59: f32):
          %60 = arith.addf %58, %59 : f32
          linalg.yield %60 : f32
        } -> tensor<1xf32>
        %61 = tensor.empty() : tensor<1xf32>
        %l_i_3 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%mul, %sum : tensor<1xf32>, tensor<1xf32>) outs(%61 : tensor<1xf32>) attrs =  {loom.loc = "flash_decode.py:37"} {
        ^bb0(%62: f32, %63: f32, %64: f32):
          %65 = arith.addf %62, %63 : f32
          linalg.yield %65 : f32
        } -> tensor<1xf32>
        %66 = tensor.empty() : tensor<1x64xf32>
        %mul_1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%acc_2, %alpha : tensor<1x64xf32>, tensor<1xf32>) outs(%66 : tensor<1x64xf32>) attrs =  {loom.loc = "flash_decode.py:38"} {
        ^bb0(%67: f32, %68: f32, %69: f32):
          %70 = arith.mulf %67, %68 : f32
          linalg.yield %70 : f32
        } -> tensor<1x64xf32>
        %71 = tensor.empty(%tile_n) : tensor<1x?xbf16>
        %exp_bf16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%exp : tensor<1x?xf32>) outs(%71 : tensor<1x?xbf16>) attrs =  {loom.loc = "flash_decode.py:38"} {
        ^bb0(%72: f32, %73: bf16):
          %74 = arith.truncf %72 : f32 to bf16
          linalg.yield %74 : bf16
        } -> tensor<1x?xbf16>
        %acc_3 = linalg.matmul {loom.loc = "flash_decode.py:38"} ins(%exp_bf16, %v_blk : tensor<1x?xbf16>, tensor<?x64xbf16>) outs(%mul_1 : tensor<1x64xf32>) -> tensor<1x64xf32>
        scf.yield %m_new, %l_i_3, %acc_3 : tensor<1xf32>, tensor<1xf32>, tensor<1x64xf32>
      } {loom.loc = "flash_decode.py:30", loom.combine = "lse", loom.carried_roles = ["max", "rescaled", "rescaled"]}
      %75 = tensor.empty() : tensor<1x64xbf16>
      %div_bf16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%acc_1, %l_i_1 : tensor<1x64xf32>, tensor<1xf32>) outs(%75 : tensor<1x64xbf16>) attrs =  {loom.loc = "flash_decode.py:40"} {
      ^bb0(%76: f32, %77: f32, %78: bf16):
        %79 = arith.divf %76, %77 : f32
        %80 = arith.truncf %79 : f32 to bf16
        linalg.yield %80 : bf16
      } -> tensor<1x64xbf16>
      %81 = memref.subview %out[%b_idx, %h_idx, 0, 0] [1, 1, 1, 64] [1, 1, 1, 1] {loom.loc = "flash_decode.py:40"} : memref<2x2x1x64xbf16> to memref<1x64xbf16, strided<[64, 1], offset: ?>>
      loom.write %div_bf16, %81 {loom.loc = "flash_decode.py:40"} : tensor<1x64xbf16>, memref<1x64xbf16, strided<[64, 1], offset: ?>>
      affine.yield
    }) {loom.grid = ["b", "h"]} : (index, index) -> ()
    func.return
  }
}
