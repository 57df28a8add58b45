// candidate x2x2_y1.bh.q:unicast.k:unicast.v:unicast
builtin.module {
  func.func @flash_decode(%q: memref<2x2x1x64xbf16>, %k: memref<2x2x256x64xbf16>, %v: memref<2x2x256x64xbf16>, %out: memref<2x2x1x64xbf16>) attributes {loom.source = "examples/flash_decode.py", loom.outputs = ["out"]} {
    %0 = arith.constant 1 : index
    %tile_n = loom.sym @tile_n {upper_bound = 256 : i64, reduction, masked} : index
    %1 = arith.constant 2 : index
    "affine.parallel"() <{reductions = [], lowerBoundsMap = affine_map<() -> (0, 0)>, lowerBoundsGroups = dense<1> : vector<2xi32>, upperBoundsMap = affine_map<() -> (2, 2)>, upperBoundsGroups = dense<1> : vector<2xi32>, steps = [1 : i64, 1 : i64]}> ({
    ^bb0(%c_x0: index, %c_x1: index):
      %mem0 = loom.mem.alloc() {slot = 0 : i64} : memref<1xf32, "L1">
      %mem1 = loom.mem.alloc() {slot = 1 : i64} : memref<1xf32, "L1">
      %mem2 = loom.mem.alloc() {slot = 2 : i64} : memref<1xf32, "L1">
      %mem3 = loom.mem.alloc() {slot = 3 : i64} : memref<1xf32, "L1">
      %mem4 = loom.mem.alloc() {slot = 4 : i64} : memref<1x64xf32, "L1">
      %mem5 = loom.mem.alloc() {slot = 5 : i64} : memref<1x64xbf16, "L1">
      %mem6 = loom.mem.alloc() {slot = 6 : i64} : memref<1x64xbf16, "L1">
      %mem7 = loom.mem.alloc(%tile_n) {slot = 7 : i64} : memref<?x64xbf16, "L1">
      %mem8 = loom.mem.alloc(%tile_n) {slot = 8 : i64} : memref<?x64xbf16, "L1">
      %mem9 = loom.mem.alloc(%tile_n) {slot = 9 : i64} : memref<64x?xbf16, "L1">
      %mem10 = loom.mem.alloc(%tile_n) {slot = 10 : i64} : memref<1x?xf32, "L1">
      %mem11 = loom.mem.alloc(%tile_n) {slot = 11 : i64} : memref<1x?xbf16, "L1">
      %2 = loom.sem.alloc : i32
      %vb_m_i = loom.vb.bind "m_i" %mem0, %2 : memref<1xf32, "L1">, i32 -> memref<1xf32, "L1">
      %3 = loom.sem.alloc : i32
      %vb_l_i = loom.vb.bind "l_i" %mem1, %3 : memref<1xf32, "L1">, i32 -> memref<1xf32, "L1">
      %4 = loom.sem.alloc : i32
      %vb_acc = loom.vb.bind "acc" %mem4, %4 : memref<1x64xf32, "L1">, i32 -> memref<1x64xf32, "L1">
      %5 = loom.sem.alloc : i32
      %vb_q_blk = loom.vb.bind "q_blk" %mem5, %5 : memref<1x64xbf16, "L1">, i32 -> memref<1x64xbf16, "L1">
      %6 = loom.sem.alloc : i32
      %vb_k_blk = loom.vb.bind "k_blk" %mem7, %6 : memref<?x64xbf16, "L1">, i32 -> memref<?x64xbf16, "L1">
      %7 = loom.sem.alloc : i32
      %vb_v_blk = loom.vb.bind "v_blk" %mem8, %7 : memref<?x64xbf16, "L1">, i32 -> memref<?x64xbf16, "L1">
      %8 = loom.sem.alloc : i32
      %vb_permute = loom.vb.bind "permute" %mem9, %8 : memref<64x?xbf16, "L1">, i32 -> memref<64x?xbf16, "L1">
      %9 = loom.sem.alloc : i32
      %vb_mm = loom.vb.bind "mm" %mem10, %9 : memref<1x?xf32, "L1">, i32 -> memref<1x?xf32, "L1">
      %10 = loom.sem.alloc : i32
      %vb_amax = loom.vb.bind "amax" %mem2, %10 : memref<1xf32, "L1">, i32 -> memref<1xf32, "L1">
      %11 = loom.sem.alloc : i32
      %vb_m_new = loom.vb.bind "m_new" %mem3, %11 : memref<1xf32, "L1">, i32 -> memref<1xf32, "L1">
      %12 = loom.sem.alloc : i32
      %vb_sum = loom.vb.bind "sum" %mem2, %12 : memref<1xf32, "L1">, i32 -> memref<1xf32, "L1">
      %13 = loom.sem.alloc : i32
      %vb_exp_bf16 = loom.vb.bind "exp_bf16" %mem11, %13 : memref<1x?xbf16, "L1">, i32 -> memref<1x?xbf16, "L1">
      %14 = loom.sem.alloc : i32
      %vb_div_bf16 = loom.vb.bind "div_bf16" %mem6, %14 : memref<1x64xbf16, "L1">, i32 -> memref<1x64xbf16, "L1">
      %15 = arith.constant 1 : index
      %16 = arith.constant 2 : index
      %17 = arith.ceildivui %16, %15 : index
      %18 = arith.constant 2 : index
      %trips_b = arith.ceildivui %17, %18 : index
      %19 = arith.constant 1 : index
      %20 = arith.constant 2 : index
      %21 = arith.ceildivui %20, %19 : index
      %22 = arith.constant 2 : index
      %trips_h = arith.ceildivui %21, %22 : index
      %23 = arith.constant 0 : index
      %24 = arith.constant 1 : index
      scf.for %t_b = %23 to %trips_b step %24 {
        %25 = arith.muli %c_x0, %trips_b : index
        %b_idx = arith.addi %25, %t_b : index
        %26 = arith.constant 0 : index
        %27 = arith.constant 1 : index
        scf.for %t_h = %26 to %trips_h step %27 {
          %28 = arith.muli %c_x1, %trips_h : index
          %h_idx = arith.addi %28, %t_h : index
          %29 = arith.cmpi ult, %b_idx, %17 : index
          %30 = arith.cmpi ult, %h_idx, %21 : index
          %31 = arith.andi %29, %30 : i1
          scf.if %31 {
            %32 = arith.constant 0xff800000 : f32
            %33 = loom.vb.reserve %vb_m_i : memref<1xf32, "L1">
            linalg.fill {loom.loc = "flash_decode.py:26"} ins(%32 : f32) outs(%33 : memref<1xf32, "L1">)
            loom.vb.commit %vb_m_i : memref<1xf32, "L1">
            %34 = arith.constant 0.000000e+00 : f32
            %35 = loom.vb.reserve %vb_l_i : memref<1xf32, "L1">
            linalg.fill {loom.loc = "flash_decode.py:27"} ins(%34 : f32) outs(%35 : memref<1xf32, "L1">)
            loom.vb.commit %vb_l_i : memref<1xf32, "L1">
            %36 = arith.constant 0.000000e+00 : f32
            %37 = loom.vb.reserve %vb_acc : memref<1x64xf32, "L1">
            linalg.fill {loom.loc = "flash_decode.py:28"} ins(%36 : f32) outs(%37 : memref<1x64xf32, "L1">)
            loom.vb.commit %vb_acc : memref<1x64xf32, "L1">
            %38 = memref.subview %q[%b_idx, %h_idx, 0, 0] [1, 1, 1, 64] [1, 1, 1, 1] {loom.loc = "flash_decode.py:29"} : memref<2x2x1x64xbf16> to memref<1x64xbf16, strided<[64, 1], offset: ?>>
            %39 = loom.vb.reserve %vb_q_blk : memref<1x64xbf16, "L1">
            loom.copy %38, %39 {loom.loc = "flash_decode.py:29", mode = "unicast", group = [1 : i64, 1 : i64], src_space = "DRAM", dst_space = "L1"} : memref<1x64xbf16, strided<[64, 1], offset: ?>>, memref<1x64xbf16, "L1">
            loom.vb.commit %vb_q_blk : memref<1x64xbf16, "L1">
            %40 = arith.constant 256 : index
            %41 = arith.ceildivui %40, %tile_n : index
            %42 = arith.constant 0 : index
            %43 = loom.vb.acquire %vb_q_blk : memref<1x64xbf16, "L1">
            scf.for %tile_n_idx = %42 to %41 step %0 {
              %44 = arith.muli %tile_n_idx, %tile_n : index
              %45 = memref.subview %k[%b_idx, %h_idx, %44, 0] [1, 1, %tile_n, 64] [1, 1, 1, 1] {loom.loc = "flash_decode.py:31"} : memref<2x2x256x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
              %46 = loom.vb.reserve %vb_k_blk : memref<?x64xbf16, "L1">
              loom.copy %45, %46 {loom.loc = "flash_decode.py:31", mode = "unicast", group = [1 : i64, 1 : i64], src_space = "DRAM", dst_space = "L1"} : memref<?x64xbf16, strided<[64, 1], offset: ?>>, memref<?x64xbf16, "L1">
              loom.vb.commit %vb_k_blk : memref<?x64xbf16, "L1">
              %47 = memref.subview %v[%b_idx, %h_idx, %44, 0] [1, 1, %tile_n, 64] [1, 1, 1, 1] {loom.loc = "flash_decode.py:32"} : memref<2x2x256x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
              %48 = loom.vb.reserve %vb_v_blk : memref<?x64xbf16, "L1">
              loom.copy %47, %48 {loom.loc = "flash_decode.py:32", mode = "unicast", group = [1 : i64, 1 : i64], src_space = "DRAM", dst_space = "L1"} : memref<?x64xbf16, strided<[64, 1], offset: ?>>, memref<?x64xbf16, "L1">
              loom.vb.commit %vb_v_blk : memref<?x64xbf16, "L1">
              %49 = loom.vb.acquire %vb_k_blk : memref<?x64xbf16, "L1">
              %50 = loom.vb.reserve %vb_permute : memref<64x?xbf16, "L1">
              linalg.transpose ins(%49:memref<?x64xbf16, "L1">) outs(%50:memref<64x?xbf16, "L1">) permutation = [1, 0]
              loom.vb.commit %vb_permute : memref<64x?xbf16, "L1">
              loom.vb.release %vb_k_blk : memref<?x64xbf16, "L1">
              %51 = arith.constant 0.000000e+00 : f32
              %52 = loom.vb.reserve %vb_mm : memref<1x?xf32, "L1">
              linalg.fill {loom.loc = "flash_decode.py:33"} ins(%51 : f32) outs(%52 : memref<1x?xf32, "L1">)
              loom.vb.commit %vb_mm : memref<1x?xf32, "L1">
              %53 = loom.vb.acquire %vb_permute : memref<64x?xbf16, "L1">
              %54 = loom.vb.acquire %vb_mm : memref<1x?xf32, "L1">
              loom.vb.release %vb_mm : memref<1x?xf32, "L1">
              %55 = loom.vb.reserve %vb_mm : memref<1x?xf32, "L1">
              linalg.matmul {loom.loc = "flash_decode.py:33"} ins(%43, %53 : memref<1x64xbf16, "L1">, memref<64x?xbf16, "L1">) outs(%55 : memref<1x?xf32, "L1">)
              loom.vb.commit %vb_mm : memref<1x?xf32, "L1">
              loom.vb.release %vb_permute : memref<64x?xbf16, "L1">
              %56 = arith.constant 1.250000e-01 : f32
              %57 = loom.vb.acquire %vb_mm : memref<1x?xf32, "L1">
              loom.vb.release %vb_mm : memref<1x?xf32, "L1">
              %58 = loom.vb.reserve %vb_mm : memref<1x?xf32, "L1">
              linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%57 : memref<1x?xf32, "L1">) outs(%58 : memref<1x?xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:33"} {
              ^bb0(%59: f32, %60: f32):
                %61 = arith.mulf %59, %56 : f32
                linalg.yield %61 : f32
              }
              loom.vb.commit %vb_mm : memref<1x?xf32, "L1">
              %62 = arith.constant 0xff800000 : f32
              %63 = loom.vb.reserve %vb_amax : memref<1xf32, "L1">
              linalg.fill {loom.loc = "flash_decode.py:34"} ins(%62 : f32) outs(%63 : memref<1xf32, "L1">)
              loom.vb.commit %vb_amax : memref<1xf32, "L1">
              %64 = loom.vb.acquire %vb_mm : memref<1x?xf32, "L1">
              %65 = loom.vb.acquire %vb_amax : memref<1xf32, "L1">
              loom.vb.release %vb_amax : memref<1xf32, "L1">
              %66 = loom.vb.reserve %vb_amax : memref<1xf32, "L1">
              linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%64 : memref<1x?xf32, "L1">) outs(%66 : memref<1xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:34"} {
              ^bb0(%67: f32, %68: f32):
                %69 = arith.maximumf %67, %68 : f32
                linalg.yield %69 : f32
              }
              loom.vb.commit %vb_amax : memref<1xf32, "L1">
              %70 = loom.vb.acquire %vb_m_i : memref<1xf32, "L1">
              %71 = loom.vb.acquire %vb_amax : memref<1xf32, "L1">
              %72 = loom.vb.reserve %vb_m_new : memref<1xf32, "L1">
              linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%70, %71 : memref<1xf32, "L1">, memref<1xf32, "L1">) outs(%72 : memref<1xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:34"} {
              ^bb0(%73: f32, %74: f32, %75: f32):
                %76 = arith.maximumf %73, %74 : f32
                linalg.yield %76 : f32
              }
              loom.vb.commit %vb_m_new : memref<1xf32, "L1">
              loom.vb.release %vb_amax : memref<1xf32, "L1">
              %77 = loom.vb.acquire %vb_m_new : memref<1xf32, "L1">
              loom.vb.release %vb_mm : memref<1x?xf32, "L1">
              %78 = loom.vb.reserve %vb_mm : memref<1x?xf32, "L1">
              linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%64, %77 : memref<1x?xf32, "L1">, memref<1xf32, "L1">) outs(%78 : memref<1x?xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:35"} {
              ^bb0(%79: f32, %80: f32, %81: f32):
                %82 = arith.subf %79, %80 : f32
                linalg.yield %82 : f32
              }
              loom.vb.commit %vb_mm : memref<1x?xf32, "L1">
              %83 = loom.vb.acquire %vb_mm : memref<1x?xf32, "L1">
              loom.vb.release %vb_mm : memref<1x?xf32, "L1">
              %84 = loom.vb.reserve %vb_mm : memref<1x?xf32, "L1">
              linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%83 : memref<1x?xf32, "L1">) outs(%84 : memref<1x?xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:35"} {
              ^bb0(%85: f32, %86: f32):
                %87 = math.exp %85 : f32
                linalg.yield %87 : f32
              }
              loom.vb.commit %vb_mm : memref<1x?xf32, "L1">
              loom.vb.release %vb_m_i : memref<1xf32, "L1">
              %88 = loom.vb.reserve %vb_m_i : memref<1xf32, "L1">
              linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%70, %77 : memref<1xf32, "L1">, memref<1xf32, "L1">) outs(%88 : memref<1xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:36"} {
              ^bb0(%89: f32, %90: f32, %91: f32):
                %92 = arith.subf %89, %90 : f32
                linalg.yield %92 : f32
              }
              loom.vb.commit %vb_m_i : memref<1xf32, "L1">
              %93 = loom.vb.acquire %vb_m_i : memref<1xf32, "L1">
              loom.vb.release %vb_m_i : memref<1xf32, "L1">
              %94 = loom.vb.reserve %vb_m_i : memref<1xf32, "L1">
              linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%93 : memref<1xf32, "L1">) outs(%94 : memref<1xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:36"} {
              ^bb0(%95: f32, %96: f32):
                %97 = math.exp %95 : f32
                linalg.yield %97 : f32
              }
              loom.vb.commit %vb_m_i : memref<1xf32, "L1">
              %98 = loom.vb.acquire %vb_l_i : memref<1xf32, "L1">
              %99 = loom.vb.acquire %vb_m_i : memref<1xf32, "L1">
              loom.vb.release %vb_l_i : memref<1xf32, "L1">
              %100 = loom.vb.reserve %vb_l_i : memref<1xf32, "L1">
              linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%98, %99 : memref<1xf32, "L1">, memref<1xf32, "L1">) outs(%100 : memref<1xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:37"} {
              ^bb0(%101: f32, %102: f32, %103: f32):
                %104 = arith.mulf %101, %102 : f32
                linalg.yield %104 : f32
              }
              loom.vb.commit %vb_l_i : memref<1xf32, "L1">
              %105 = arith.constant 0.000000e+00 : f32
              %106 = loom.vb.reserve %vb_sum : memref<1xf32, "L1">
              linalg.fill {loom.loc = "flash_decode.py:37"} ins(%105 : f32) outs(%106 : memref<1xf32, "L1">)
              loom.vb.commit %vb_sum : memref<1xf32, "L1">
              %107 = loom.vb.acquire %vb_mm : memref<1x?xf32, "L1">
              %108 = loom.vb.acquire %vb_sum : memref<1xf32, "L1">
              loom.vb.release %vb_sum : memref<1xf32, "L1">
              %109 = loom.vb.reserve %vb_sum : memref<1xf32, "L1">
              linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%107 : memref<1x?xf32, "L1">) outs(%109 : memref<1xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:37"} {
              ^bb0(%110: f32, %111: f32):
                %112 = arith.addf %110, %111 : f32
                linalg.yield %112 : f32
              }
              loom.vb.commit %vb_sum : memref<1xf32, "L1">
              %113 = loom.vb.acquire %vb_l_i : memref<1xf32, "L1">
              %114 = loom.vb.acquire %vb_sum : memref<1xf32, "L1">
              loom.vb.release %vb_l_i : memref<1xf32, "L1">
              %115 = loom.vb.reserve %vb_l_i : memref<1xf32, "L1">
              linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%113, %114 : memref<1xf32, "L1">, memref<1xf32, "L1">) outs(%115 : memref<1xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:37"} {
              ^bb0(%116: f32, %117: f32, %118: f32):
                %119 = arith.addf %116, %117 : f32
                linalg.yield %119 : f32
              }
              loom.vb.commit %vb_l_i : memref<1xf32, "L1">
              loom.vb.release %vb_sum : memref<1xf32, "L1">
              %120 = loom.vb.acquire %vb_acc : memref<1x64xf32, "L1">
              loom.vb.release %vb_acc : memref<1x64xf32, "L1">
              %121 = loom.vb.reserve %vb_acc : memref<1x64xf32, "L1">
              linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%120, %99 : memref<1x64xf32, "L1">, memref<1xf32, "L1">) outs(%121 : memref<1x64xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:38"} {
              ^bb0(%122: f32, %123: f32, %124: f32):
                %125 = arith.mulf %122, %123 : f32
                linalg.yield %125 : f32
              }
              loom.vb.commit %vb_acc : memref<1x64xf32, "L1">
              loom.vb.release %vb_m_i : memref<1xf32, "L1">
              %126 = loom.vb.reserve %vb_exp_bf16 : memref<1x?xbf16, "L1">
              linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%107 : memref<1x?xf32, "L1">) outs(%126 : memref<1x?xbf16, "L1">) attrs =  {loom.loc = "flash_decode.py:38"} {
              ^bb0(%127: f32, %128: bf16):
                %129 = arith.truncf %127 : f32 to bf16
                linalg.yield %129 : bf16
              }
              loom.vb.commit %vb_exp_bf16 : memref<1x?xbf16, "L1">
              loom.vb.release %vb_mm : memref<1x?xf32, "L1">
              %130 = loom.vb.acquire %vb_v_blk : memref<?x64xbf16, "L1">
              %131 = loom.vb.acquire %vb_acc : memref<1x64xf32, "L1">
              %132 = loom.vb.acquire %vb_exp_bf16 : memref<1x?xbf16, "L1">
              loom.vb.release %vb_acc : memref<1x64xf32, "L1">
              %133 = loom.vb.reserve %vb_acc : memref<1x64xf32, "L1">
              linalg.matmul {loom.loc = "flash_decode.py:38"} ins(%132, %130 : memref<1x?xbf16, "L1">, memref<?x64xbf16, "L1">) outs(%133 : memref<1x64xf32, "L1">)
              loom.vb.commit %vb_acc : memref<1x64xf32, "L1">
              loom.vb.release %vb_v_blk : memref<?x64xbf16, "L1">
              loom.vb.release %vb_exp_bf16 : memref<1x?xbf16, "L1">
              %134 = loom.vb.reserve %vb_m_i : memref<1xf32, "L1">
              linalg.copy ins(%77 : memref<1xf32, "L1">) outs(%134 : memref<1xf32, "L1">)
              loom.vb.commit %vb_m_i : memref<1xf32, "L1">
              loom.vb.release %vb_m_new : memref<1xf32, "L1">
            } {loom.loc = "flash_decode.py:30", loom.combine = "lse", loom.carried_roles = ["max", "rescaled", "rescaled"], loom.carried = ["m_i", "l_i", "acc"]}
            loom.vb.release %vb_q_blk : memref<1x64xbf16, "L1">
            %135 = loom.vb.acquire %vb_m_i : memref<1xf32, "L1">
            loom.vb.release %vb_m_i : memref<1xf32, "L1">
            %136 = loom.vb.acquire %vb_l_i : memref<1xf32, "L1">
            %137 = loom.vb.acquire %vb_acc : memref<1x64xf32, "L1">
            %138 = loom.vb.reserve %vb_div_bf16 : memref<1x64xbf16, "L1">
            linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%137, %136 : memref<1x64xf32, "L1">, memref<1xf32, "L1">) outs(%138 : memref<1x64xbf16, "L1">) attrs =  {loom.loc = "flash_decode.py:40"} {
            ^bb0(%139: f32, %140: f32, %141: bf16):
              %142 = arith.divf %139, %140 : f32
              %143 = arith.truncf %142 : f32 to bf16
              linalg.yield %143 : bf16
            }
            loom.vb.commit %vb_div_bf16 : memref<1x64xbf16, "L1">
            loom.vb.release %vb_l_i : memref<1xf32, "L1">
            loom.vb.release %vb_acc : memref<1x64xf32, "L1">
            %144 = memref.subview %out[%b_idx, %h_idx, 0, 0] [1, 1, 1, 64] [1, 1, 1, 1] {loom.loc = "flash_decode.py:40"} : memref<2x2x1x64xbf16> to memref<1x64xbf16, strided<[64, 1], offset: ?>>
            %145 = loom.vb.acquire %vb_div_bf16 : memref<1x64xbf16, "L1">
            loom.copy %145, %144 {loom.loc = "flash_decode.py:40", mode = "unicast", group = [1 : i64, 1 : i64], src_space = "L1", dst_space = "DRAM"} : memref<1x64xbf16, "L1">, memref<1x64xbf16, strided<[64, 1], offset: ?>>
            loom.vb.release %vb_div_bf16 : memref<1x64xbf16, "L1">
          }
        }
      }
      affine.yield
    }) {loom.candidate = "x2x2_y1.bh.q:unicast.k:unicast.v:unicast", loom.view = "x2x2_y1"} : () -> ()
    func.return
  }
}
