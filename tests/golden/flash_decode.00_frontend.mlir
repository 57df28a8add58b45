builtin.module {
  func.func @flash_decode(%q: memref<2x2x1x64xbf16>, %k: memref<2x2x256x64xbf16>, %v: memref<2x2x256x64xbf16>, %out: memref<2x2x1x64xbf16>) attributes {loom.source = "examples/flash_decode.py", loom.outputs = ["out"]} {
    %0 = arith.constant 1 : index
    %tile_n = loom.sym @tile_n {upper_bound = 256 : i64, reduction} : index
    %1 = arith.constant 2 : index
    "affine.parallel"(%1, %1) <{reductions = [], lowerBoundsMap = affine_map<() -> (0, 0)>, lowerBoundsGroups = dense<1> : vector<2xi32>, upperBoundsMap = affine_map<()[s0, s1] -> (s0, s1)>, upperBoundsGroups = dense<1> : vector<2xi32>, steps = [1 : i64, 1 : i64]}> ({
    ^bb0(%b_idx: index, %h_idx: index):
      %2 = tensor.empty() : tensor<1xf32>
      %3 = arith.constant 0xff800000 : f32
      %4 = linalg.fill {loom.loc = "flash_decode.py:24"} ins(%3 : f32) outs(%2 : tensor<1xf32>) -> tensor<1xf32>
      %5 = tensor.empty() : tensor<1xf32>
      %6 = arith.constant 0.000000e+00 : f32
      %7 = linalg.fill {loom.loc = "flash_decode.py:25"} ins(%6 : f32) outs(%5 : tensor<1xf32>) -> tensor<1xf32>
      %8 = tensor.empty() : tensor<1x64xf32>
      %9 = arith.constant 0.000000e+00 : f32
      %10 = linalg.fill {loom.loc = "flash_decode.py:26"} ins(%9 : f32) outs(%8 : tensor<1x64xf32>) -> tensor<1x64xf32>
      %11 = arith.constant 0 : index
      %12 = arith.constant 64 : index
      %13 = memref.subview %q[%b_idx, %h_idx, %11, %11] [%0, %0, %0, %12] [1, 1, 1, 1] {loom.loc = "flash_decode.py:27"} : memref<2x2x1x64xbf16> to memref<1x64xbf16, strided<[64, 1], offset: ?>>
      %14 = loom.read %13 {loom.loc = "flash_decode.py:27"} : memref<1x64xbf16, strided<[64, 1], offset: ?>> -> tensor<1x64xbf16>
      %15 = arith.constant 256 : index
      %16 = arith.ceildivui %15, %tile_n : index
      %17, %18, %19 = scf.for %tile_n_idx = %11 to %16 step %0 iter_args(%20 = %4, %21 = %7, %22 = %10) -> (tensor<1xf32>, tensor<1xf32>, tensor<1x64xf32>) {
        %23 = arith.muli %tile_n_idx, %tile_n : index
        %24 = memref.subview %k[%b_idx, %h_idx, %23, %11] [%0, %0, %tile_n, %12] [1, 1, 1, 1] {loom.loc = "flash_decode.py:29"} : memref<2x2x256x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
        %25 = loom.read %24 {loom.loc = "flash_decode.py:29"} : memref<?x64xbf16, strided<[64, 1], offset: ?>> -> tensor<?x64xbf16>
        %26 = memref.subview %v[%b_idx, %h_idx, %23, %11] [%0, %0, %tile_n, %12] [1, 1, 1, 1] {loom.loc = "flash_decode.py:30"} : memref<2x2x256x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
        %27 = loom.read %26 {loom.loc = "flash_decode.py:30"} : memref<?x64xbf16, strided<[64, 1], offset: ?>> -> tensor<?x64xbf16>
        %28 = tensor.empty(%tile_n) : tensor<64x?xbf16>
        %29 = linalg.transpose ins(%25:tensor<?x64xbf16>) outs(%28:tensor<64x?xbf16>) permutation = [1, 0]
        %30 = tensor.empty(%tile_n) : tensor<1x?xf32>
        %31 = arith.constant 0.000000e+00 : f32
        %32 = linalg.fill {loom.loc = "flash_decode.py:31"} ins(%31 : f32) outs(%30 : tensor<1x?xf32>) -> tensor<1x?xf32>
        %33 = linalg.matmul {loom.loc = "flash_decode.py:31"} ins(%14, %29 : tensor<1x64xbf16>, tensor<64x?xbf16>) outs(%32 : tensor<1x?xf32>) -> tensor<1x?xf32>
        %34 = arith.constant 1.250000e-01 : f32
        %35 = tensor.empty(%tile_n) : tensor<1x?xf32>
        %36 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%33 : tensor<1x?xf32>) outs(%35 : tensor<1x?xf32>) attrs =  {loom.loc = "flash_decode.py:31"} {
        ^bb0(%37: f32, %38: f32):
          %39 = arith.mulf %37, %34 : f32
          linalg.yield %39 : f32
        } -> tensor<1x?xf32>
        %40 = tensor.empty() : tensor<1xf32>
        %41 = arith.constant 0xff800000 : f32
        %42 = linalg.fill {loom.loc = "flash_decode.py:32"} ins(%41 : f32) outs(%40 : tensor<1xf32>) -> tensor<1xf32>
        %43 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%36 : tensor<1x?xf32>) outs(%42 : tensor<1xf32>) attrs =  {loom.loc = "flash_decode.py:32"} {
        ^bb0(%44: f32, %45: f32):
          %46 = arith.maximumf %44, %45 : f32
          linalg.yield %46 : f32
        } -> tensor<1xf32>
        %47 = tensor.empty() : tensor<1xf32>
        %48 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%20, %43 : tensor<1xf32>, tensor<1xf32>) outs(%47 : tensor<1xf32>) attrs =  {loom.loc = "flash_decode.py:32"} {
        ^bb0(%49: f32, %50: f32, %51: f32):
          %52 = arith.maximumf %49, %50 : f32
          linalg.yield %52 : f32
        } -> tensor<1xf32>
        %53 = tensor.empty(%tile_n) : tensor<1x?xf32>
        %54 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%36, %48 : tensor<1x?xf32>, tensor<1xf32>) outs(%53 : tensor<1x?xf32>) attrs =  {loom.loc = "flash_decode.py:33"} {
        ^bb0(%55: f32, %56: f32, %57: f32):
          %58 = arith.subf %55, %56 : f32
          linalg.yield %58 : f32
        } -> tensor<1x?xf32>
        %59 = tensor.empty(%tile_n) : tensor<1x?xf32>
        %60 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%54 : tensor<1x?xf32>) outs(%59 : tensor<1x?xf32>) attrs =  {loom.loc = "flash_decode.py:33"} {
        ^bb0(%61: f32, %62: f32):
          %63 = math.exp %61 : f32
          linalg.yield %63 : f32
        } -> tensor<1x?xf32>
        %64 = tensor.empty() : tensor<1xf32>
        %65 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%20, %48 : tensor<1xf32>, tensor<1xf32>) outs(%64 : tensor<1xf32>) attrs =  {loom.loc = "flash_decode.py:34"} {
        ^bb0(%66: f32, %67: f32, %68: f32):
          %69 = arith.subf %66, %67 : f32
          linalg.yield %69 : f32
        } -> tensor<1xf32>
        %70 = tensor.empty() : tensor<1xf32>
        %71 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%65 : tensor<1xf32>) outs(%70 : tensor<1xf32>) attrs =  {loom.loc = "flash_decode.py:34"} {
        ^bb0(%72: f32, %73: f32):
          %74 = math.exp %72 : f32
          linalg.yield %74 : f32
        } -> tensor<1xf32>
        %75 = tensor.empty() : tensor<1xf32>
        %76 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%21, %71 : tensor<1xf32>, tensor<1xf32>) outs(%75 : tensor<1xf32>) attrs =  {loom.loc = "flash_decode.py:35"} {
        ^bb0(%77: f32, %78: f32, %79: f32):
          %80 = arith.mulf %77, %78 : f32
          linalg.yield %80 : f32
        } -> tensor<1xf32>
        %81 = tensor.empty() : tensor<1xf32>
        %82 = arith.constant 0.000000e+00 : f32
        %83 = linalg.fill {loom.loc = "flash_decode.py:35"} ins(%82 : f32) outs(%81 : tensor<1xf32>) -> tensor<1xf32>
        %84 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%60 : tensor<1x?xf32>) outs(%83 : tensor<1xf32>) attrs =  {loom.loc = "flash_decode.py:35"} {
        ^bb0(%85: f32, %86: f32):
          %87 = arith.addf %85, %86 : f32
          linalg.yield %87 : f32
        } -> tensor<1xf32>
        %88 = tensor.empty() : tensor<1xf32>
        %89 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%76, %84 : tensor<1xf32>, tensor<1xf32>) outs(%88 : tensor<1xf32>) attrs =  {loom.loc = "flash_decode.py:35"} {
        ^bb0(%90: f32, %91: f32, %92: f32):
          %93 = arith.addf %90, %91 : f32
          linalg.yield %93 : f32
        } -> tensor<1xf32>
        %94 = tensor.empty() : tensor<1x64xf32>
        %95 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%22, %71 : tensor<1x64xf32>, tensor<1xf32>) outs(%94 : tensor<1x64xf32>) attrs =  {loom.loc = "flash_decode.py:36"} {
        ^bb0(%96: f32, %97: f32, %98: f32):
          %99 = arith.mulf %96, %97 : f32
          linalg.yield %99 : f32
        } -> tensor<1x64xf32>
        %100 = tensor.empty(%tile_n) : tensor<1x?xbf16>
        %101 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%60 : tensor<1x?xf32>) outs(%100 : tensor<1x?xbf16>) attrs =  {loom.loc = "flash_decode.py:36"} {
        ^bb0(%102: f32, %103: bf16):
          %104 = arith.truncf %102 : f32 to bf16
          linalg.yield %104 : bf16
        } -> tensor<1x?xbf16>
        %105 = linalg.matmul {loom.loc = "flash_decode.py:36"} ins(%101, %27 : tensor<1x?xbf16>, tensor<?x64xbf16>) outs(%95 : tensor<1x64xf32>) -> tensor<1x64xf32>
        scf.yield %48, %89, %105 : tensor<1xf32>, tensor<1xf32>, tensor<1x64xf32>
      } {loom.loc = "flash_decode.py:28"}
      %106 = tensor.empty() : tensor<1x64xf32>
      %107 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%19, %18 : tensor<1x64xf32>, tensor<1xf32>) outs(%106 : tensor<1x64xf32>) attrs =  {loom.loc = "flash_decode.py:38"} {
      ^bb0(%108: f32, %109: f32, %110: f32):
        %111 = arith.divf %108, %109 : f32
        linalg.yield %111 : f32
      } -> tensor<1x64xf32>
      %112 = tensor.empty() : tensor<1x64xbf16>
      %113 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%107 : tensor<1x64xf32>) outs(%112 : tensor<1x64xbf16>) attrs =  {loom.loc = "flash_decode.py:38"} {
      ^bb0(%114: f32, %115: bf16):
        %116 = arith.truncf %114 : f32 to bf16
        linalg.yield %116 : bf16
      } -> tensor<1x64xbf16>
      %117 = memref.subview %out[%b_idx, %h_idx, %11, %11] [%0, %0, %0, %12] [1, 1, 1, 1] {loom.loc = "flash_decode.py:38"} : memref<2x2x1x64xbf16> to memref<1x64xbf16, strided<[64, 1], offset: ?>>
      loom.write %113, %117 {loom.loc = "flash_decode.py:38"} : tensor<1x64xbf16>, memref<1x64xbf16, strided<[64, 1], offset: ?>>
      affine.yield
    }) {loom.grid = ["b", "h"]} : (index, index) -> ()
    func.return
  }
}
