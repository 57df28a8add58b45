builtin.module {
  func.func @flash_attention(%q: memref<1x2x128x64xbf16>, %k: memref<1x2x128x64xbf16>, %v: memref<1x2x128x64xbf16>, %out: memref<1x2x128x64xbf16>) attributes {loom.source = "examples/flash_attention.py", loom.outputs = ["out"]} {
    %0 = arith.constant 1 : index
    %tile_m = loom.sym @tile_m {upper_bound = 128 : i64} : index
    %tile_n = loom.sym @tile_n {upper_bound = 128 : i64, reduction, masked} : index
    %1 = arith.constant 2 : index
    %2 = arith.constant 128 : index
    %3 = arith.ceildivui %2, %tile_m : index
    "affine.parallel"(%0, %1, %3) <{reductions = [], lowerBoundsMap = affine_map<() -> (0, 0, 0)>, lowerBoundsGroups = dense<1> : vector<3xi32>, upperBoundsMap = affine_map<()[s0, s1, s2] -> (s0, s1, s2)>, upperBoundsGroups = dense<1> : vector<3xi32>, steps = [1 : i64, 1 : i64, 1 : i64]}> ({
    ^bb0(%b_idx: index, %h_idx: index, %tile_m_idx: index):
      %4 = tensor.empty(%tile_m) : tensor<?xf32>
      %5 = arith.constant 0xff800000 : f32
      %m_i = linalg.fill {loom.loc = "flash_attention.py:20"} ins(%5 : f32) outs(%4 : tensor<?xf32>) -> tensor<?xf32>
      %6 = tensor.empty(%tile_m) : tensor<?xf32>
      %7 = arith.constant 0.000000e+00 : f32
      %l_i = linalg.fill {loom.loc = "flash_attention.py:21"} ins(%7 : f32) outs(%6 : tensor<?xf32>) -> tensor<?xf32>
      %8 = tensor.empty(%tile_m) : tensor<?x64xf32>
      %9 = arith.constant 0.000000e+00 : f32
      %acc = linalg.fill {loom.loc = "flash_attention.py:22"} ins(%9 : f32) outs(%8 : tensor<?x64xf32>) -> tensor<?x64xf32>
      %10 = arith.muli %tile_m_idx, %tile_m : index
      %11 = memref.subview %q[%b_idx, %h_idx, %10, 0] [1, 1, %tile_m, 64] [1, 1, 1, 1] {loom.loc = "flash_attention.py:23"} : memref<1x2x128x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
      %q_blk = loom.read %11 {loom.loc = "flash_attention.py:23"} : memref<?x64xbf16, strided<[64, 1], offset: ?>> -> tensor<?x64xbf16>
      %12 = arith.ceildivui %2, %tile_n : index
      %13 = arith.constant 0 : index
      %m_i_1, %l_i_1, %acc_1 = scf.for %tile_n_idx = %13 to %12 step %0 iter_args(%m_i_2 = %m_i, %l_i_2 = %l_i, %acc_2 = %acc) -> (tensor<?xf32>, tensor<?xf32>, tensor<?x64xf32>) {
        %14 = arith.muli %tile_n_idx, %tile_n : index
        %15 = memref.subview %k[%b_idx, %h_idx, %14, 0] [1, 1, %tile_n, 64] [1, 1, 1, 1] {loom.loc = "flash_attention.py:25"} : memref<1x2x128x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
        %k_blk = loom.read %15 {loom.loc = "flash_attention.py:25"} : memref<?x64xbf16, strided<[64, 1], offset: ?>> -> tensor<?x64xbf16>
        %16 = memref.subview %v[%b_idx, %h_idx, %14, 0] [1, 1, %tile_n, 64] [1, 1, 1, 1] {loom.loc = "flash_attention.py:26"} : memref<1x2x128x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
        %v_blk = loom.read %16 {loom.loc = "flash_attention.py:26"} : memref<?x64xbf16, strided<[64, 1], offset: ?>> -> tensor<?x64xbf16>
        %17 = tensor.empty(%tile_n) : tensor<64x?xbf16>
        %permute = linalg.transpose ins(%k_blk:tensor<?x64xbf16>) outs(%17:tensor<64x?xbf16>) permutation = [1, 0]
        %18 = tensor.empty(%tile_m, %tile_n) : tensor<?x?xf32>
        %19 = arith.constant 0.000000e+00 : f32
        %mm_init = linalg.fill {loom.loc = "flash_attention.py:27"} ins(%19 : f32) outs(%18 : tensor<?x?xf32>) -> tensor<?x?xf32>
        %mm = linalg.matmul {loom.loc = "flash_attention.py:27"} ins(%q_blk, %permute : tensor<?x64xbf16>, tensor<64x?xbf16>) outs(%mm_init : tensor<?x?xf32>) -> tensor<?x?xf32>
        %20 = arith.constant 1.250000e-01 : f32
        %21 = tensor.empty(%tile_m, %tile_n) : tensor<?x?xf32>
        %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<?x?xf32>) outs(%21 : tensor<?x?xf32>) attrs =  {loom.loc = "flash_attention.py:27"} {
        ^bb0(%22: f32, %23: f32):
          %24 = arith.mulf %22, %20 : f32
          linalg.yield %24 : f32
        } -> tensor<?x?xf32>
        %25 = tensor.empty(%tile_m) : tensor<?xf32>
        %26 = arith.constant 0xff800000 : f32
        %amax_init = linalg.fill {loom.loc = "flash_attention.py:28"} ins(%26 : f32) outs(%25 : tensor<?xf32>) -> tensor<?xf32>
        %amax = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<?x?xf32>) outs(%amax_init : tensor<?xf32>) attrs =  {loom.loc = "flash_attention.py:28"} {
        ^bb0(%27: f32, %28: f32):
          %29 = arith.maximumf %27, %28 : f32
          linalg.yield %29 : f32
        } -> tensor<?xf32>
        %30 = tensor.empty(%tile_m) : tensor<?xf32>
        %m_new = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%m_i_2, %amax : tensor<?xf32>, tensor<?xf32>) outs(%30 : tensor<?xf32>) attrs =  {loom.loc = "flash_attention.py:28"} {
        ^bb0(%31: f32, %32: f32, %33: f32):
          %34 = arith.maximumf %31, %32 : f32
          linalg.yield %34 : f32
        } -> tensor<?xf32>
        %35 = tensor.empty(%tile_m, %tile_n) : tensor<?x?xf32>
        %sub = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%s, %m_new : tensor<?x?xf32>, tensor<?xf32>) outs(%35 : tensor<?x?xf32>) attrs =  {loom.loc = "flash_attention.py:29"} {
        ^bb0(%36: f32, %37: f32, %38: f32):
          %39 = arith.subf %36, %37 : f32
          linalg.yield %39 : f32
        } -> tensor<?x?xf32>
        %40 = tensor.empty(%tile_m, %tile_n) : tensor<?x?xf32>
        %exp = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%sub : tensor<?x?xf32>) outs(%40 : tensor<?x?xf32>) attrs =  {loom.loc = "flash_attention.py:29"} {
        ^bb0(%41: f32, %42: f32):
          %43 = math.exp %41 : f32
          linalg.yield %43 : f32
        } -> tensor<?x?xf32>
        %44 = tensor.empty(%tile_m) : tensor<?xf32>
        %sub_1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%m_i_2, %m_new : tensor<?xf32>, tensor<?xf32>) outs(%44 : tensor<?xf32>) attrs =  {loom.loc = "flash_attention.py:30"} {
        ^bb0(%45: f32, %46: f32, %47: f32):
          %48 = arith.subf %45, %46 : f32
          linalg.yield %48 : f32
        } -> tensor<?xf32>
        %49 = tensor.empty(%tile_m) : tensor<?xf32>
        %alpha = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%sub_1 : tensor<?xf32>) outs(%49 : tensor<?xf32>) attrs =  {loom.loc = "flash_attention.py:30"} {
        ^bb0(%50: f32, %51: f32):
          %52 = math.exp %50 : f32
          linalg.yield %52 : f32
        } -> tensor<?xf32>
        %53 = tensor.empty(%tile_m) : tensor<?xf32>
        %mul = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%l_i_2, %alpha : tensor<?xf32>, tensor<?xf32>) outs(%53 : tensor<?xf32>) attrs =  {loom.loc = "flash_attention.py:31"} {
        ^bb0(%54: f32, %55: f32, %56: f32):
          %57 = arith.mulf %54, %55 : f32
          linalg.yield %57 : f32
        } -> tensor<?xf32>
        %58 = tensor.empty(%tile_m) : tensor<?xf32>
        %59 = arith.constant 0.000000e+00 : f32
        %sum_1_init = linalg.fill {loom.loc = "flash_attention.py:31"} ins(%59 : f32) outs(%58 : tensor<?xf32>) -> tensor<?xf32>
        %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%exp : tensor<?x?xf32>) outs(%sum_1_init : tensor<?xf32>) attrs =  {loom.loc = "flash_attention.py:31"} {
        ^bb0(%60: f32, %61: f32):
          %62 = arith.addf %60, %61 : f32
          linalg.yield %62 : f32
        } -> tensor<?xf32>
        %63 = tensor.empty(%tile_m) : tensor<?xf32>
        %l_i_3 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%mul, %sum : tensor<?xf32>, tensor<?xf32>) outs(%63 : tensor<?xf32>) attrs =  {loom.loc = "flash_attention.py:31"} {
        ^bb0(%64: f32, %65: f32, %66: f32):
          %67 = arith.addf %64, %65 : f32
          linalg.yield %67 : f32
        } -> tensor<?xf32>
        %68 = tensor.empty(%tile_m) : tensor<?x64xf32>
        %mul_1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%acc_2, %alpha : tensor<?x64xf32>, tensor<?xf32>) outs(%68 : tensor<?x64xf32>) attrs =  {loom.loc = "flash_attention.py:32"} {
        ^bb0(%69: f32, %70: f32, %71: f32):
          %72 = arith.mulf %69, %70 : f32
          linalg.yield %72 : f32
        } -> tensor<?x64xf32>
        %73 = tensor.empty(%tile_m, %tile_n) : tensor<?x?xbf16>
        %exp_bf16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%exp : tensor<?x?xf32>) outs(%73 : tensor<?x?xbf16>) attrs =  {loom.loc = "flash_attention.py:32"} {
        ^bb0(%74: f32, %75: bf16):
          %76 = arith.truncf %74 : f32 to bf16
          linalg.yield %76 : bf16
        } -> tensor<?x?xbf16>
        %acc_3 = linalg.matmul {loom.loc = "flash_attention.py:32"} ins(%exp_bf16, %v_blk : tensor<?x?xbf16>, tensor<?x64xbf16>) outs(%mul_1 : tensor<?x64xf32>) -> tensor<?x64xf32>
        scf.yield %m_new, %l_i_3, %acc_3 : tensor<?xf32>, tensor<?xf32>, tensor<?x64xf32>
      } {loom.loc = "flash_attention.py:24", loom.combine = "lse", loom.carried_roles = ["max", "rescaled", "rescaled"]}
      %77 = tensor.empty(%tile_m) : tensor<?x64xbf16>
      %div_bf16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%acc_1, %l_i_1 : tensor<?x64xf32>, tensor<?xf32>) outs(%77 : tensor<?x64xbf16>) attrs =  {loom.loc = "flash_attention.py:34"} {
      ^bb0(%78: f32, %79: f32, %80: bf16):
        %81 = arith.divf %78, %79 : f32
        %82 = arith.truncf %81 : f32 to bf16
        linalg.yield %82 : bf16
      } -> tensor<?x64xbf16>
      %83 = memref.subview %out[%b_idx, %h_idx, %10, 0] [1, 1, %tile_m, 64] [1, 1, 1, 1] {loom.loc = "flash_attention.py:34"} : memref<1x2x128x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
      loom.write %div_bf16, %83 {loom.loc = "flash_attention.py:34"} : tensor<?x64xbf16>, memref<?x64xbf16, strided<[64, 1], offset: ?>>
      affine.yield
    }) {loom.grid = ["b", "h", "tile_m"]} : (index, index, index) -> ()
    func.return
  }
}
