// candidate x2x4_y2y2.nm.x:unicast.y:row
builtin.module {
  func.func @matmul(%x: memref<256x64xbf16>, %y: memref<64x128xbf16>, %out: memref<256x128xbf16>) attributes {loom.source = "examples/matmul.py", loom.outputs = ["out"]} {
    %tile_m = loom.sym @tile_m {upper_bound = 256 : i64} : index
    %tile_n = loom.sym @tile_n {upper_bound = 128 : i64} : index
    %tile_k = loom.sym @tile_k {upper_bound = 64 : i64, reduction} : index
    %0 = arith.constant 256 : index
    %1 = arith.ceildivui %0, %tile_m : index
    %2 = arith.constant 128 : index
    %3 = arith.ceildivui %2, %tile_n : index
    "affine.parallel"() <{reductions = [], lowerBoundsMap = affine_map<() -> (0, 0, 0, 0)>, lowerBoundsGroups = dense<1> : vector<4xi32>, upperBoundsMap = affine_map<() -> (2, 4, 2, 2)>, upperBoundsGroups = dense<1> : vector<4xi32>, steps = [1 : i64, 1 : i64, 1 : i64, 1 : i64]}> ({
    ^bb0(%c_x0: index, %c_x1: index, %c_y0: index, %c_y1: index):
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
      %8 = arith.constant 2 : index
      %9 = arith.muli %c_x1, %8 : index
      %core_tile_m = arith.addi %9, %c_y1 : index
      %10 = arith.constant 256 : index
      %11 = arith.ceildivui %10, %tile_m : index
      %12 = arith.constant 8 : index
      %trips_tile_m = arith.ceildivui %11, %12 : index
      %13 = arith.constant 2 : index
      %14 = arith.muli %c_x0, %13 : index
      %core_tile_n = arith.addi %14, %c_y0 : index
      %15 = arith.constant 128 : index
      %16 = arith.ceildivui %15, %tile_n : index
      %17 = arith.constant 4 : index
      %trips_tile_n = arith.ceildivui %16, %17 : index
      %18 = arith.constant 0 : index
      %19 = arith.constant 1 : index
      scf.for %t_tile_n = %18 to %trips_tile_n step %19 {
        %20 = arith.muli %core_tile_n, %trips_tile_n : index
        %tile_n_idx = arith.addi %20, %t_tile_n : index
        %21 = arith.constant 0 : index
        %22 = arith.constant 1 : index
        scf.for %t_tile_m = %21 to %trips_tile_m step %22 {
          %23 = arith.muli %core_tile_m, %trips_tile_m : index
          %tile_m_idx = arith.addi %23, %t_tile_m : index
          %24 = arith.cmpi ult, %tile_n_idx, %16 : index
          %25 = arith.cmpi ult, %tile_m_idx, %11 : index
          %26 = arith.andi %24, %25 : i1
          scf.if %26 {
            %27 = arith.constant 0.000000e+00 : f32
            %28 = loom.vb.reserve %vb_acc : memref<?x?xf32, "L1">
            linalg.fill {loom.loc = "matmul.py:17"} ins(%27 : f32) outs(%28 : memref<?x?xf32, "L1">)
            loom.vb.commit %vb_acc : memref<?x?xf32, "L1">
            %29 = arith.constant 64 : index
            %30 = arith.ceildivui %29, %tile_k : index
            %31 = arith.constant 0 : index
            %32 = arith.constant 1 : index
            scf.for %tile_k_idx = %31 to %30 step %32 {
              %33 = arith.muli %tile_m_idx, %tile_m : index
              %34 = arith.muli %tile_k_idx, %tile_k : index
              %35 = memref.subview %x[%33, %34] [%tile_m, %tile_k] [1, 1] {loom.loc = "matmul.py:19"} : memref<256x64xbf16> to memref<?x?xbf16, strided<[64, 1], offset: ?>>
              %36 = loom.vb.reserve %vb_x_tile : memref<?x?xbf16, "L1">
              loom.copy %35, %36 {loom.loc = "matmul.py:19", mode = "unicast", group = [1 : i64, 1 : i64], spatial_reuse = ["tile_n"], temporal_reuse = ["t_tile_n"], src_space = "DRAM", dst_space = "L1"} : memref<?x?xbf16, strided<[64, 1], offset: ?>>, memref<?x?xbf16, "L1">
              loom.vb.commit %vb_x_tile : memref<?x?xbf16, "L1">
              %37 = arith.muli %tile_n_idx, %tile_n : index
              %38 = memref.subview %y[%34, %37] [%tile_k, %tile_n] [1, 1] {loom.loc = "matmul.py:19"} : memref<64x128xbf16> to memref<?x?xbf16, strided<[128, 1], offset: ?>>
              %39 = loom.vb.reserve %vb_y_tile : memref<?x?xbf16, "L1">
              loom.copy %38, %39 {loom.loc = "matmul.py:19", mode = "row", group = [4 : i64, 1 : i64], spatial_reuse = ["tile_m"], temporal_reuse = ["t_tile_m"], src_space = "DRAM", dst_space = "L1"} : memref<?x?xbf16, strided<[128, 1], offset: ?>>, memref<?x?xbf16, "L1">
              loom.vb.commit %vb_y_tile : memref<?x?xbf16, "L1">
              %40 = loom.vb.acquire %vb_acc : memref<?x?xf32, "L1">
              %41 = loom.vb.acquire %vb_x_tile : memref<?x?xbf16, "L1">
              %42 = loom.vb.acquire %vb_y_tile : memref<?x?xbf16, "L1">
              loom.vb.release %vb_acc : memref<?x?xf32, "L1">
              %43 = loom.vb.reserve %vb_acc : memref<?x?xf32, "L1">
              linalg.matmul {loom.loc = "matmul.py:19"} ins(%41, %42 : memref<?x?xbf16, "L1">, memref<?x?xbf16, "L1">) outs(%43 : memref<?x?xf32, "L1">)
              loom.vb.commit %vb_acc : memref<?x?xf32, "L1">
              loom.vb.release %vb_x_tile : memref<?x?xbf16, "L1">
              loom.vb.release %vb_y_tile : memref<?x?xbf16, "L1">
            } {loom.loc = "matmul.py:18", loom.combine = "sum", loom.carried_roles = ["sum"], loom.carried = ["acc"]}
            %44 = loom.vb.acquire %vb_acc : memref<?x?xf32, "L1">
            %45 = loom.vb.reserve %vb_acc_bf16 : memref<?x?xbf16, "L1">
            linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%44 : memref<?x?xf32, "L1">) outs(%45 : memref<?x?xbf16, "L1">) attrs =  {loom.loc = "matmul.py:20"} {
            ^bb0(%46: f32, %47: bf16):
              %48 = arith.truncf %46 : f32 to bf16
              linalg.yield %48 : bf16
            }
            loom.vb.commit %vb_acc_bf16 : memref<?x?xbf16, "L1">
            loom.vb.release %vb_acc : memref<?x?xf32, "L1">
            %49 = arith.muli %tile_m_idx, %tile_m : index
            %50 = arith.muli %tile_n_idx, %tile_n : index
            %51 = memref.subview %out[%49, %50] [%tile_m, %tile_n] [1, 1] {loom.loc = "matmul.py:20"} : memref<256x128xbf16> to memref<?x?xbf16, strided<[128, 1], offset: ?>>
            %52 = loom.vb.acquire %vb_acc_bf16 : memref<?x?xbf16, "L1">
            loom.copy %52, %51 {loom.loc = "matmul.py:20", mode = "unicast", group = [1 : i64, 1 : i64], src_space = "L1", dst_space = "DRAM"} : memref<?x?xbf16, "L1">, memref<?x?xbf16, strided<[128, 1], offset: ?>>
            loom.vb.release %vb_acc_bf16 : memref<?x?xbf16, "L1">
          }
        }
      }
      affine.yield
    }) {loom.candidate = "x2x4_y2y2.nm.x:unicast.y:row", loom.view = "x2x4_y2y2"} : () -> ()
    func.return
  }
}
