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
      %vb_acc = loom.vb.create "acc"(%tile_m, %tile_n) : memref<?x?xf32, "L1">
      %vb_x_tile = loom.vb.create "x_tile"(%tile_m, %tile_k) : memref<?x?xbf16, "L1">
      %vb_y_tile = loom.vb.create "y_tile"(%tile_k, %tile_n) : memref<?x?xbf16, "L1">
      %vb_acc_bf16 = loom.vb.create "acc_bf16"(%tile_m, %tile_n) : memref<?x?xbf16, "L1">
      %4 = arith.constant 0.000000e+00 : f32
      %5 = loom.vb.reserve %vb_acc : memref<?x?xf32, "L1">
      linalg.fill {loom.loc = "matmul.py:17"} ins(%4 : f32) outs(%5 : memref<?x?xf32, "L1">)
      loom.vb.commit %vb_acc : memref<?x?xf32, "L1">
      %6 = arith.constant 64 : index
      %7 = arith.ceildivui %6, %tile_k : index
      %8 = arith.constant 0 : index
      %9 = arith.constant 1 : index
      scf.for %tile_k_idx = %8 to %7 step %9 {
        %10 = arith.muli %tile_m_idx, %tile_m : index
        %11 = arith.muli %tile_k_idx, %tile_k : index
        %12 = memref.subview %x[%10, %11] [%tile_m, %tile_k] [1, 1] {loom.loc = "matmul.py:19"} : memref<256x64xbf16> to memref<?x?xbf16, strided<[64, 1], offset: ?>>
        %13 = loom.vb.reserve %vb_x_tile : memref<?x?xbf16, "L1">
        loom.copy %12, %13 {loom.loc = "matmul.py:19", src_space = "DRAM", dst_space = "L1"} : memref<?x?xbf16, strided<[64, 1], offset: ?>>, memref<?x?xbf16, "L1">
        loom.vb.commit %vb_x_tile : memref<?x?xbf16, "L1">
        %14 = arith.muli %tile_n_idx, %tile_n : index
        %15 = memref.subview %y[%11, %14] [%tile_k, %tile_n] [1, 1] {loom.loc = "matmul.py:19"} : memref<64x128xbf16> to memref<?x?xbf16, strided<[128, 1], offset: ?>>
        %16 = loom.vb.reserve %vb_y_tile : memref<?x?xbf16, "L1">
        loom.copy %15, %16 {loom.loc = "matmul.py:19", src_space = "DRAM", dst_space = "L1"} : memref<?x?xbf16, strided<[128, 1], offset: ?>>, memref<?x?xbf16, "L1">
        loom.vb.commit %vb_y_tile : memref<?x?xbf16, "L1">
        %17 = loom.vb.acquire %vb_acc : memref<?x?xf32, "L1">
        %18 = loom.vb.acquire %vb_x_tile : memref<?x?xbf16, "L1">
        %19 = loom.vb.acquire %vb_y_tile : memref<?x?xbf16, "L1">
        loom.vb.release %vb_acc : memref<?x?xf32, "L1">
        %20 = loom.vb.reserve %vb_acc : memref<?x?xf32, "L1">
        linalg.matmul {loom.loc = "matmul.py:19"} ins(%18, %19 : memref<?x?xbf16, "L1">, memref<?x?xbf16, "L1">) outs(%20 : memref<?x?xf32, "L1">)
        loom.vb.commit %vb_acc : memref<?x?xf32, "L1">
        loom.vb.release %vb_x_tile : memref<?x?xbf16, "L1">
        loom.vb.release %vb_y_tile : memref<?x?xbf16, "L1">
      } {loom.loc = "matmul.py:18", loom.combine = "sum", loom.carried_roles = ["sum"], loom.carried = ["acc"]}
      %21 = loom.vb.acquire %vb_acc : memref<?x?xf32, "L1">
      %22 = loom.vb.reserve %vb_acc_bf16 : memref<?x?xbf16, "L1">
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%21 : memref<?x?xf32, "L1">) outs(%22 : memref<?x?xbf16, "L1">) attrs =  {loom.loc = "matmul.py:20"} {
      ^bb0(%23: f32, %24: bf16):
        %25 = arith.truncf %23 : f32 to bf16
        linalg.yield %25 : bf16
      }
      loom.vb.commit %vb_acc_bf16 : memref<?x?xbf16, "L1">
      loom.vb.release %vb_acc : memref<?x?xf32, "L1">
      %26 = arith.muli %tile_m_idx, %tile_m : index
      %27 = arith.muli %tile_n_idx, %tile_n : index
      %28 = memref.subview %out[%26, %27] [%tile_m, %tile_n] [1, 1] {loom.loc = "matmul.py:20"} : memref<256x128xbf16> to memref<?x?xbf16, strided<[128, 1], offset: ?>>
      %29 = loom.vb.acquire %vb_acc_bf16 : memref<?x?xbf16, "L1">
      loom.copy %29, %28 {loom.loc = "matmul.py:20", src_space = "L1", dst_space = "DRAM"} : memref<?x?xbf16, "L1">, memref<?x?xbf16, strided<[128, 1], offset: ?>>
      loom.vb.release %vb_acc_bf16 : memref<?x?xbf16, "L1">
      affine.yield
    }) {loom.grid = ["tile_m", "tile_n"]} : (index, index) -> ()
    func.return
  }
}
