builtin.module {
  func.func @matmul(%x: memref<256x64xbf16>, %y: memref<64x128xbf16>, %out: memref<256x128xbf16>) attributes {loom.source = "examples/matmul.py", loom.outputs = ["out"]} {
    %tile_m = loom.sym @tile_m {upper_bound = 256 : i64} : index
    %tile_n = loom.sym @tile_n {upper_bound = 128 : i64} : index
    %tile_k = loom.sym @tile_k {upper_bound = 64 : i64, reduction} : index
    %0 = arith.constant 256 : index
    %1 = arith.ceildivui %0, %tile_m : index
    %2 = arith.constant 128 : index
    %3 = arith.ceildivui %2, %tile_n : index
    "affine.parallel"(%1, %3) <{reductions = [], lowerBoundsMap = affine_map<() -> (0, 0)>, lowerBoundsGroups = dense<1> : vector<2xi32>, upperBoundsMap = affine_map<()[s0, s1] -> (s0, s1)>, upperBoundsGroups = dense<1> : vector<2xi32>, steps = [1 : i64, 1 : i64]}> ({
    ^bb0(%tile_m_idx: index, %tile_n_idx: index):
      %4 = tensor.empty(%tile_m, %tile_n) : tensor<?x?xf32>
      %5 = arith.constant 0.000000e+00 : f32
      %6 = linalg.fill {loom.loc = "matmul.py:17"} ins(%5 : f32) outs(%4 : tensor<?x?xf32>) -> tensor<?x?xf32>
      %7 = arith.constant 64 : index
      %8 = arith.ceildivui %7, %tile_k : index
      %9 = arith.constant 0 : index
      %10 = arith.constant 1 : index
      %11 = scf.for %tile_k_idx = %9 to %8 step %10 iter_args(%12 = %6) -> (tensor<?x?xf32>) {
        %13 = arith.muli %tile_m_idx, %tile_m : index
        %14 = arith.muli %tile_k_idx, %tile_k : index
        %15 = memref.subview %x[%13, %14] [%tile_m, %tile_k] [1, 1] {loom.loc = "matmul.py:19"} : memref<256x64xbf16> to memref<?x?xbf16, strided<[64, 1], offset: ?>>
        %16 = loom.read %15 {loom.loc = "matmul.py:19"} : memref<?x?xbf16, strided<[64, 1], offset: ?>> -> tensor<?x?xbf16>
        %17 = arith.muli %tile_n_idx, %tile_n : index
        %18 = memref.subview %y[%14, %17] [%tile_k, %tile_n] [1, 1] {loom.loc = "matmul.py:19"} : memref<64x128xbf16> to memref<?x?xbf16, strided<[128, 1], offset: ?>>
        %19 = loom.read %18 {loom.loc = "matmul.py:19"} : memref<?x?xbf16, strided<[128, 1], offset: ?>> -> tensor<?x?xbf16>
        %20 = linalg.matmul {loom.loc = "matmul.py:19"} ins(%16, %19 : tensor<?x?xbf16>, tensor<?x?xbf16>) outs(%12 : tensor<?x?xf32>) -> tensor<?x?xf32>
        scf.yield %20 : tensor<?x?xf32>
      } {loom.loc = "matmul.py:18"}
      %21 = tensor.empty(%tile_m, %tile_n) : tensor<?x?xbf16>
      %22 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<?x?xf32>) outs(%21 : tensor<?x?xbf16>) attrs =  {loom.loc = "matmul.py:20"} {
      ^bb0(%23: f32, %24: bf16):
        %25 = arith.truncf %23 : f32 to bf16
        linalg.yield %25 : bf16
      } -> tensor<?x?xbf16>
      %26 = arith.muli %tile_m_idx, %tile_m : index
      %27 = arith.muli %tile_n_idx, %tile_n : index
      %28 = memref.subview %out[%26, %27] [%tile_m, %tile_n] [1, 1] {loom.loc = "matmul.py:20"} : memref<256x128xbf16> to memref<?x?xbf16, strided<[128, 1], offset: ?>>
      loom.write %22, %28 {loom.loc = "matmul.py:20"} : tensor<?x?xbf16>, memref<?x?xbf16, strided<[128, 1], offset: ?>>
      affine.yield
    }) {loom.grid = ["tile_m", "tile_n"]} : (index, index) -> ()
    func.return
  }
}
