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
      %mem0 = loom.mem.alloc(%tile_m, %tile_n) {slot = 0 : i64} : memref<?x?xf32, "L1">
      %mem1 = loom.mem.alloc(%tile_m, %tile_k) {slot = 1 : i64} : memref<?x?xbf16, "L1">
      %mem2 = loom.mem.alloc(%tile_k, %tile_n) {slot = 2 : i64} : memref<?x?xbf16, "L1">
      %mem3 = loom.mem.alloc(%tile_m, %tile_n) {slot = 3 : i64} : memref<?x?xbf16, "L1">
      %4 = loom.sem.alloc : i32
      %vb_acc = loom.vb.bind "acc" %mem0, %4 : memref<?x?xf32, "L1">, i32 -> memref<?x?xf32, "L1">
      %5 = loom.sem.alloc : i32
      %vb_x_tile = loom.vb.bind "x_tile" %mem1, %5 : memref<?x?xbf16, "L1">, i32 -> memref<?x?xbf16, "L1">
      %6 = loom.sem.alloc : i32
      %vb_y_tile = loom.vb.bind "y_tile" %mem2, %6 : memref<?x?xbf16, "L1">, i32 -> memref<?x?xbf16, "L1">
      %7 = loom.sem.alloc : i32
      %vb_acc_bf16 = loom.vb.bind "acc_bf16" %mem3, %7 : memref<?x?xbf16, "L1">, i32 -> memref<?x?xbf16, "L1">
      %8 = arith.constant 0.000000e+00 : f32
      %9 = loom.vb.reserve %vb_acc : memref<?x?xf32, "L1">
      linalg.fill {loom.loc = "matmul.py:17"} ins(%8 : f32) outs(%9 : memref<?x?xf32, "L1">)
      loom.vb.commit %vb_acc : memref<?x?xf32, "L1">
      %10 = arith.constant 64 : index
      %11 = arith.ceildivui %10, %tile_k : index
      %12 = arith.constant 0 : index
      %13 = arith.constant 1 : index
      scf.for %tile_k_idx = %12 to %11 step %13 {
        %14 = arith.muli %tile_m_idx, %tile_m : index
        %15 = arith.muli %tile_k_idx, %tile_k : index
        %16 = memref.subview %x[%14, %15] [%tile_m, %tile_k] [1, 1] {loom.loc = "matmul.py:19"} : memref<256x64xbf16> to memref<?x?xbf16, strided<[64, 1], offset: ?>>
        %17 = loom.vb.reserve %vb_x_tile : memref<?x?xbf16, "L1">
        loom.copy %16, %17 {loom.loc = "matmul.py:19", src_space = "DRAM", dst_space = "L1"} : memref<?x?xbf16, strided<[64, 1], offset: ?>>, memref<?x?xbf16, "L1">
        loom.vb.commit %vb_x_tile : memref<?x?xbf16, "L1">
        %18 = arith.muli %tile_n_idx, %tile_n : index
        %19 = memref.subview %y[%15, %18] [%tile_k, %tile_n] [1, 1] {loom.loc = "matmul.py:19"} : memref<64x128xbf16> to memref<?x?xbf16, strided<[128, 1], offset: ?>>
        %20 = loom.vb.reserve %vb_y_tile : memref<?x?xbf16, "L1">
        loom.copy %19, %20 {loom.loc = "matmul.py:19", src_space = "DRAM", dst_space = "L1"} : memref<?x?xbf16, strided<[128, 1], offset: ?>>, memref<?x?xbf16, "L1">
        loom.vb.commit %vb_y_tile : memref<?x?xbf16, "L1">
        %21 = loom.vb.acquire %vb_acc : memref<?x?xf32, "L1">
        %22 = loom.vb.acquire %vb_x_tile : memref<?x?xbf16, "L1">
        %23 = loom.vb.acquire %vb_y_tile : memref<?x?xbf16, "L1">
        loom.vb.release %vb_acc : memref<?x?xf32, "L1">
        %24 = loom.vb.reserve %vb_acc : memref<?x?xf32, "L1">
        linalg.matmul {loom.loc = "matmul.py:19"} ins(%22, %23 : memref<?x?xbf16, "L1">, memref<?x?xbf16, "L1">) outs(%24 : memref<?x?xf32, "L1">)
        loom.vb.commit %vb_acc : memref<?x?xf32, "L1">
        loom.vb.release %vb_x_tile : memref<?x?xbf16, "L1">
        loom.vb.release %vb_y_tile : memref<?x?xbf16, "L1">
      } {loom.loc = "matmul.py:18", loom.combine = "sum", loom.carried_roles = ["sum"], loom.carried = ["acc"]}
      %25 = loom.vb.acquire %vb_acc : memref<?x?xf32, "L1">
      %26 = loom.vb.reserve %vb_acc_bf16 : memref<?x?xbf16, "L1">
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%25 : memref<?x?xf32, "L1">) outs(%26 : memref<?x?xbf16, "L1">) attrs =  {loom.loc = "matmul.py:20"} {
      ^bb0(%27: f32, %28: bf16):
        %29 = arith.truncf %27 : f32 to bf16
        linalg.yield %29 : bf16
      }
      loom.vb.commit %vb_acc_bf16 : memref<?x?xbf16, "L1">
      loom.vb.release %vb_acc : memref<?x?xf32, "L1">
      %30 = arith.muli %tile_m_idx, %tile_m : index
      %31 = arith.muli %tile_n_idx, %tile_n : index
      %32 = memref.subview %out[%30, %31] [%tile_m, %tile_n] [1, 1] {loom.loc = "matmul.py:20"} : memref<256x128xbf16> to memref<?x?xbf16, strided<[128, 1], offset: ?>>
      %33 = loom.vb.acquire %vb_acc_bf16 : memref<?x?xbf16, "L1">
      loom.copy %33, %32 {loom.loc = "matmul.py:20", src_space = "L1", dst_space = "DRAM"} : memref<?x?xbf16, "L1">, memref<?x?xbf16, strided<[128, 1], offset: ?>>
      loom.vb.release %vb_acc_bf16 : memref<?x?xbf16, "L1">
      affine.yield
    }) {loom.grid = ["tile_m", "tile_n"]} : (index, index) -> ()
    func.return
  }
}
