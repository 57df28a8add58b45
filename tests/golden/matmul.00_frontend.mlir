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
      %acc = linalg.fill {loom.loc = "matmul.py:17"} ins(%5 : f32) outs(%4 : tensor<?x?xf32>) -> tensor<?x?xf32>
      %6 = arith.constant 64 : index
      %7 = arith.ceildivui %6, %tile_k : index
      %8 = arith.constant 0 : index
      %9 = arith.constant 1 : index
      %acc_1 = scf.for %tile_k_idx = %8 to %7 step %9 iter_args(%acc_2 = %acc) -> (tensor<?x?xf32>) {
        %10 = arith.muli %tile_m_idx, %tile_m : index
        %11 = arith.muli %tile_k_idx, %tile_k : index
        %12 = memref.subview %x[%10, %11] [%tile_m, %tile_k] [1, 1] {loom.loc = "matmul.py:19"} : memref<256x64xbf16> to memref<?x?xbf16, strided<[64, 1], offset: ?>>
        %x_tile = loom.read %12 {loom.loc = "matmul.py:19"} : memref<?x?xbf16, strided<[64, 1], offset: ?>> -> tensor<?x?xbf16>
        %13 = arith.muli %tile_n_idx, %tile_n : index
        %14 = memref.subview %y[%11, %13] [%tile_k, %tile_n] [1, 1] {loom.loc = "matmul.py:19"} : memref<64x128xbf16> to memref<?x?xbf16, strided<[128, 1], offset: ?>>
        %y_tile = loom.read %14 {loom.loc = "matmul.py:19"} : memref<?x?xbf16, strided<[128, 1], offset: ?>> -> tensor<?x?xbf16>
        %acc_3 = linalg.matmul {loom.loc = "matmul.py:19"} ins(%x_tile, %y_tile : tensor<?x?xbf16>, tensor<?x?xbf16>) outs(%acc_2 : tensor<?x?xf32>) -> tensor<?x?xf32>
        scf.yield %acc_3 : tensor<?x?xf32>
      } {loom.loc = "matmul.py:18", loom.combine = "sum", loom.carried_roles = ["sum"]}
      %15 = tensor.empty(%tile_m, %tile_n) : tensor<?x?xbf16>
      %acc_bf16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%acc_1 : tensor<?x?xf32>) outs(%15 : tensor<?x?xbf16>) attrs =  {loom.loc = "matmul.py:20"} {
      ^bb0(%16: f32, %17: bf16):
        %18 = arith.truncf %16 : f32 to bf16
        linalg.yield %18 : bf16
      } -> tensor<?x?xbf16>
      %19 = arith.muli %tile_m_idx, %tile_m : index
      %20 = arith.muli %tile_n_idx, %tile_n : index
      %21 = memref.subview %out[%19, %20] [%tile_m, %tile_n] [1, 1] {loom.loc = "matmul.py:20"} : memref<256x128xbf16> to memref<?x?xbf16, strided<[128, 1], offset: ?>>
      loom.write %acc_bf16, %21 {loom.loc = "matmul.py:20"} : tensor<?x?xbf16>, memref<?x?xbf16, strided<[128, 1], offset: ?>>
      affine.yield
    }) {loom.grid = ["tile_m", "tile_n"]} : (index, index) -> ()
    func.return
  }
}
