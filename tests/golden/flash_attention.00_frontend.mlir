builtin.module {
  func.func @flash_attention(%q: memref<1x2x128x64xbf16>, %k: memref<1x2x128x64xbf16>, %v: memref<1x2x128x64xbf16>, %out: memref<1x2x128x64xbf16>) attributes {loom.source = "examples/flash_attention.py", loom.outputs = ["out"]} {
    %0 = arith.constant 1 : index
    %tile_m = loom.sym @tile_m {upper_bound = 128 : i64} : index
    %tile_n = loom.sym @tile_n {upper_bound = 128 : i64, reduction} : index
    %1 = arith.constant 2 : index
    %2 = arith.constant 128 : index
    %3 = arith.ceildivui %2, %tile_m : index
    "affine.parallel"(%0, %1, %3) <{reductions = [], lowerBoundsMap = affine_map<() -> (0, 0, 0)>, lowerBoundsGroups = dense<1> : vector<3xi32>, upperBoundsMap = affine_map<()[s0, s1, s2] -> (s0, s1, s2)>, upperBoundsGroups = dense<1> : vector<3xi32>, steps = [1 : i64, 1 : i64, 1 : i64]}> ({
    ^bb0(%b_idx: index, %h_idx: index, %tile_m_idx: index):
      %4 = tensor.empty(%tile_m) : tensor<?xf32>
      %5 = arith.constant 0xff800000 : f32
      %6 = linalg.fill {loom.loc = "flash_attention.py:20"} ins(%5 : f32) outs(%4 : tensor<?xf32>) -> tensor<?xf32>
      %7 = tensor.empty(%tile_m) : tensor<?xf32>
      %8 = arith.constant 0.000000e+00 : f32
      %9 = linalg.fill {loom.loc = "flash_attention.py:21"} ins(%8 : f32) outs(%7 : tensor<?xf32>) -> tensor<?xf32>
      %10 = tensor.empty(%tile_m) : tensor<?x64xf32>
      %11 = arith.constant 0.000000e+00 : f32
      %12 = linalg.fill {loom.loc = "flash_attention.py:22"} ins(%11 : f32) outs(%10 : tensor<?x64xf32>) -> tensor<?x64xf32>
      %13 = arith.muli %tile_m_idx, %tile_m : index
      %14 = arith.constant 0 : index
      %15 = arith.constant 64 : index
      %16 = memref.subview %q[%b_idx, %h_idx, %13, %14] [%0, %0, %tile_m, %15] [1, 1, 1, 1] {loom.loc = "flash_attention.py:23"} : memref<1x2x128x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
      %17 = loom.read %16 {loom.loc = "flash_attention.py:23"} : memref<?x64xbf16, strided<[64, 1], offset: ?>> -> tensor<?x64xbf16>
      %18 = arith.ceildivui %2, %tile_n : index
      %19, %20, %21 = scf.for %tile_n_idx = %14 to %18 step %0 iter_args(%22 = %6, %23 = %9, %24 = %12) -> (tensor<?xf32>, tensor<?xf32>, tensor<?x64xf32>) {
        %25 = arith.muli %tile_n_idx, %tile_n : index
        %26 = memref.subview %k[%b_idx, %h_idx, %25, %14] [%0, %0, %tile_n, %15] [1, 1, 1, 1] {loom.loc = "flash_attention.py:25"} : memref<1x2x128x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
        %27 = loom.read %26 {loom.loc = "flash_attention.py:25"} : memref<?x64xbf16, strided<[64, 1], offset: ?>> -> tensor<?x64xbf16>
        %28 = memref.subview %v[%b_idx, %h_idx, %25, %14] [%0, %0, %tile_n, %15] [1, 1, 1, 1] {loom.loc = "flash_attention.py:26"} : memref<1x2x128x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
        %29 = loom.read %28 {loom.loc = "flash_attention.py:26"} : memref<?x64xbf16, strided<[64, 1], offset: ?>> -> tensor<?x64xbf16>
        %30 = tensor.empty(%tile_n) : tensor<64x?xbf16>
        %31 = linalg.transpose ins(%27:tensor<?x64xbf16>) outs(%30:tensor<64x?xbf16>) permutation = [1, 0]
        %32 = tensor.empty(%tile_m, %tile_n) : tensor<?x?xf32>
        %33 = arith.constant 0.000000e+00 : f32
        %34 = linalg.fill {loom.loc = "flash_attention.py:27"} ins(%33 : f32) outs(%32 : tensor<?x?xf32>) -> tensor<?x?xf32>
        %35 = linalg.matmul {loom.loc = "flash_attention.py:27"} ins(%17, %31 : tensor<?x64xbf16>, tensor<64x?xbf16>) outs(%34 : tensor<?x?xf32>) -> tensor<?x?xf32>
        %36 = arith.constant 1.250000e-01 : f32
        %37 = tensor.empty(%tile_m, %tile_n) : tensor<?x?xf32>
        %38 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%35 : tensor<?x?xf32>) outs(%37 : tensor<?x?xf32>) attrs =  {loom.loc = "flash_attention.py:27"} {
        ^bb0(%39: f32, %40: f32):
          %41 = arith.mulf %39, %36 : f32
          linalg.yield %41 : f32
        } -> tensor<?x?xf32>
        %42 = tensor.empty(%tile_m) : tensor<?xf32>
        %43 = arith.constant 0xff800000 : f32
        %44 = linalg.fill {loom.loc = "flash_attention.py:28"} ins(%43 : f32) outs(%42 : tensor<?xf32>) -> tensor<?xf32>
        %45 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%38 : tensor<?x?xf32>) outs(%44 : tensor<?xf32>) attrs =  {loom.loc = "flash_attention.py:28"} {
        ^bb0(%46: f32, %47: f32):
          %48 = arith.maximumf %46, %47 : f32
          linalg.yield %48 : f32
        } -> tensor<?xf32>
        %49 = tensor.empty(%tile_m) : tensor<?xf32>
        %50 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%22, %45 : tensor<?xf32>, tensor<?xf32>) outs(%49 : tensor<?xf32>) attrs =  {loom.loc = "flash_attention.py:28"} {
        ^bb0(%51: f32, %52: f32, %53: f32):
          %54 = arith.maximumf %51, %52 : f32
          linalg.yield %54 : f32
        } -> tensor<?xf32>
        %55 = tensor.empty(%tile_m, %tile_n) : tensor<?x?xf32>
        %56 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%38, %50 : tensor<?x?xf32>, tensor<?xf32>) outs(%55 : tensor<?x?xf32>) attrs =  {loom.loc = "flash_attention.py:29"} {
        ^bb0(%57: f32, %58: f32, %59: f32):
          %60 = arith.subf %57, %58 : f32
          linalg.yield %60 : f32
        } -> tensor<?x?xf32>
        %61 = tensor.empty(%tile_m, %tile_n) : tensor<?x?xf32>
        %62 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%56 : tensor<?x?xf32>) outs(%61 : tensor<?x?xf32>) attrs =  {loom.loc = "flash_attention.py:29"} {
        ^bb0(%63: f32, %64: f32):
          %65 = math.exp %63 : f32
          linalg.yield %65 : f32
        } -> tensor<?x?xf32>
        %66 = tensor.empty(%tile_m) : tensor<?xf32>
        %67 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%22, %50 : tensor<?xf32>, tensor<?xf32>) outs(%66 : tensor<?xf32>) attrs =  {loom.loc = "flash_attention.py:30"} {
        ^bb0(%68: f32, %69: f32, %70: f32):
          %71 = arith.subf %68, %69 : f32
          linalg.yield %71 : f32
        } -> tensor<?xf32>
        %72 = tensor.empty(%tile_m) : tensor<?xf32>
        %73 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%67 : tensor<?xf32>) outs(%72 : tensor<?xf32>) attrs =  {loom.loc = "flash_attention.py:30"} {
        ^bb0(%74: f32, %75: f32):
          %76 = math.exp %74 : f32
          linalg.yield %76 : f32
        } -> tensor<?xf32>
        %77 = tensor.empty(%tile_m) : tensor<?xf32>
        %78 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%23, %73 : tensor<?xf32>, tensor<?xf32>) outs(%77 : tensor<?xf32>) attrs =  {loom.loc = "flash_attention.py:31"} {
        ^bb0(%79: f32, %80: f32, %81: f32):
          %82 = arith.mulf %79, %80 : f32
          linalg.yield %82 : f32
        } -> tensor<?xf32>
        %83 = tensor.empty(%tile_m) : tensor<?xf32>
        %84 = arith.constant 0.000000e+00 : f32
        %85 = linalg.fill {loom.loc = "flash_attention.py:31"} ins(%84 : f32) outs(%83 : tensor<?xf32>) -> tensor<?xf32>
        %86 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%62 : tensor<?x?xf32>) outs(%85 : tensor<?xf32>) attrs =  {loom.loc = "flash_attention.py:31"} {
        ^bb0(%87: f32, %88: f32):
          %89 = arith.addf %87, %88 : f32
          linalg.yield %89 : f32
        } -> tensor<?xf32>
        %90 = tensor.empty(%tile_m) : tensor<?xf32>
        %91 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%78, %86 : tensor<?xf32>, tensor<?xf32>) outs(%90 : tensor<?xf32>) attrs =  {loom.loc = "flash_attention.py:31"} {
        ^bb0(%92: f32, %93: f32, %94: f32):
          %95 = arith.addf %92, %93 : f32
          linalg.yield %95 : f32
        } -> tensor<?xf32>
        %96 = tensor.empty(%tile_m) : tensor<?x64xf32>
        %97 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%24, %73 : tensor<?x64xf32>, tensor<?xf32>) outs(%96 : tensor<?x64xf32>) attrs =  {loom.loc = "flash_attention.py:32"} {
        ^bb0(%98: f32, %99: f32, %100: f32):
          %101 = arith.mulf %98, %99 : f32
          linalg.yield %101 : f32
        } -> tensor<?x64xf32>
        %102 = tensor.empty(%tile_m, %tile_n) : tensor<?x?xbf16>
        %103 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%62 : tensor<?x?xf32>) outs(%102 : tensor<?x?xbf16>) attrs =  {loom.loc = "flash_attention.py:32"} {
        ^bb0(%104: f32, %105: bf16):
          %106 = arith.truncf %104 : f32 to bf16
          linalg.yield %106 : bf16
        } -> tensor<?x?xbf16>
        %107 = linalg.matmul {loom.loc = "flash_attention.py:32"} ins(%103, %29 : tensor<?x?xbf16>, tensor<?x64xbf16>) outs(%97 : tensor<?x64xf32>) -> tensor<?x64xf32>
        scf.yield %50, %91, %107 : tensor<?xf32>, tensor<?xf32>, tensor<?x64xf32>
      } {loom.loc = "flash_attention.py:24"}
      %108 = tensor.empty(%tile_m) : tensor<?x64xf32>
      %109 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%21, %20 : tensor<?x64xf32>, tensor<?xf32>) outs(%108 : tensor<?x64xf32>) attrs =  {loom.loc = "flash_attention.py:34"} {
      ^bb0(%110: f32, %111: f32, %112: f32):
        %113 = arith.divf %110, %111 : f32
        linalg.yield %113 : f32
      } -> tensor<?x64xf32>
      %114 = tensor.empty(%tile_m) : tensor<?x64xbf16>
      %115 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%109 : tensor<?x64xf32>) outs(%114 : tensor<?x64xbf16>) attrs =  {loom.loc = "flash_attention.py:34"} {
      ^bb0(%116: f32, %117: bf16):
        %118 = arith.truncf %116 : f32 to bf16
        linalg.yield %118 : bf16
      } -> tensor<?x64xbf16>
      %119 = memref.subview %out[%b_idx, %h_idx, %13, %14] [%0, %0, %tile_m, %15] [1, 1, 1, 1] {loom.loc = "flash_attention.py:34"} : memref<1x2x128x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
      loom.write %115, %119 {loom.loc = "flash_attention.py:34"} : tensor<?x64xbf16>, memref<?x64xbf16, strided<[64, 1], offset: ?>>
      affine.yield
    }) {loom.grid = ["b", "h", "tile_m"]} : (index, index, index) -> ()
    func.return
  }
}
