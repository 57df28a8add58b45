// candidate x2x2_y2.bmh.q:unicast.k:column.v:column
builtin.module {
  func.func @flash_attention(%q: memref<1x2x128x64xbf16>, %k: memref<1x2x128x64xbf16>, %v: memref<1x2x128x64xbf16>, %out: memref<1x2x128x64xbf16>) attributes {loom.source = "examples/flash_attention.py", loom.outputs = ["out"]} {
    %0 = arith.constant 1 : index
    %tile_m = loom.sym @tile_m {upper_bound = 128 : i64} : index
    %tile_n = loom.sym @tile_n {upper_bound = 128 : i64, reduction, masked} : index
    %1 = arith.constant 2 : index
    %2 = arith.constant 128 : index
    %3 = arith.ceildivui %2, %tile_m : index
    "affine.parallel"() <{reductions = [], lowerBoundsMap = affine_map<() -> (0, 0, 0)>, lowerBoundsGroups = dense<1> : vector<3xi32>, upperBoundsMap = affine_map<() -> (2, 2, 2)>, upperBoundsGroups = dense<1> : vector<3xi32>, steps = [1 : i64, 1 : i64, 1 : i64]}> ({
    ^bb0(%c_x0: index, %c_x1: index, %c_y0: index):
      %mem0 = loom.mem.alloc(%tile_m) {slot = 0 : i64} : memref<?xf32, "L1">
      %mem1 = loom.mem.alloc(%tile_m) {slot = 1 : i64} : memref<?xf32, "L1">
      %mem2 = loom.mem.alloc(%tile_m) {slot = 2 : i64} : memref<?xf32, "L1">
      %mem3 = loom.mem.alloc(%tile_m) {slot = 3 : i64} : memref<?xf32, "L1">
      %mem4 = loom.mem.alloc(%tile_m) {slot = 4 : i64} : memref<?x64xf32, "L1">
      %mem5 = loom.mem.alloc(%tile_m) {slot = 5 : i64} : memref<?x64xbf16, "L1">
      %mem6 = loom.mem.alloc(%tile_m) {slot = 6 : i64} : memref<?x64xbf16, "L1">
      %mem7 = loom.mem.alloc(%tile_n) {slot = 7 : i64} : memref<?x64xbf16, "L1">
      %mem8 = loom.mem.alloc(%tile_n) {slot = 8 : i64} : memref<?x64xbf16, "L1">
      %mem9 = loom.mem.alloc(%tile_n) {slot = 9 : i64} : memref<64x?xbf16, "L1">
      %mem10 = loom.mem.alloc(%tile_m, %tile_n) {slot = 10 : i64} : memref<?x?xf32, "L1">
      %mem11 = loom.mem.alloc(%tile_m, %tile_n) {slot = 11 : i64} : memref<?x?xbf16, "L1">
      %4 = loom.sem.alloc : i32
      %vb_m_i = loom.vb.bind "m_i" %mem0, %4 : memref<?xf32, "L1">, i32 -> memref<?xf32, "L1">
      %5 = loom.sem.alloc : i32
      %vb_l_i = loom.vb.bind "l_i" %mem1, %5 : memref<?xf32, "L1">, i32 -> memref<?xf32, "L1">
      %6 = loom.sem.alloc : i32
      %vb_acc = loom.vb.bind "acc" %mem4, %6 : memref<?x64xf32, "L1">, i32 -> memref<?x64xf32, "L1">
      %7 = loom.sem.alloc : i32
      %vb_q_blk = loom.vb.bind "q_blk" %mem5, %7 : memref<?x64xbf16, "L1">, i32 -> memref<?x64xbf16, "L1">
      %8 = loom.sem.alloc : i32
      %vb_k_blk = loom.vb.bind "k_blk" %mem7, %8 : memref<?x64xbf16, "L1">, i32 -> memref<?x64xbf16, "L1">
      %9 = loom.sem.alloc : i32
      %vb_v_blk = loom.vb.bind "v_blk" %mem8, %9 : memref<?x64xbf16, "L1">, i32 -> memref<?x64xbf16, "L1">
      %10 = loom.sem.alloc : i32
      %vb_permute = loom.vb.bind "permute" %mem9, %10 : memref<64x?xbf16, "L1">, i32 -> memref<64x?xbf16, "L1">
      %11 = loom.sem.alloc : i32
      %vb_mm = loom.vb.bind "mm" %mem10, %11 : memref<?x?xf32, "L1">, i32 -> memref<?x?xf32, "L1">
      %12 = loom.sem.alloc : i32
      %vb_amax = loom.vb.bind "amax" %mem2, %12 : memref<?xf32, "L1">, i32 -> memref<?xf32, "L1">
      %13 = loom.sem.alloc : i32
      %vb_m_new = loom.vb.bind "m_new" %mem3, %13 : memref<?xf32, "L1">, i32 -> memref<?xf32, "L1">
      %14 = loom.sem.alloc : i32
      %vb_sum = loom.vb.bind "sum" %mem2, %14 : memref<?xf32, "L1">, i32 -> memref<?xf32, "L1">
      %15 = loom.sem.alloc : i32
      %vb_exp_bf16 = loom.vb.bind "exp_bf16" %mem11, %15 : memref<?x?xbf16, "L1">, i32 -> memref<?x?xbf16, "L1">
      %16 = loom.sem.alloc : i32
      %vb_div_bf16 = loom.vb.bind "div_bf16" %mem6, %16 : memref<?x64xbf16, "L1">, i32 -> memref<?x64xbf16, "L1">
      %core_b = arith.constant 0 : index
      %17 = arith.constant 1 : index
      %18 = arith.constant 1 : index
      %19 = arith.ceildivui %18, %17 : index
      %20 = arith.constant 1 : index
      %trips_b = arith.ceildivui %19, %20 : index
      %21 = arith.constant 1 : index
      %22 = arith.constant 2 : index
      %23 = arith.ceildivui %22, %21 : index
      %24 = arith.constant 2 : index
      %trips_h = arith.ceildivui %23, %24 : index
      %25 = arith.constant 2 : index
      %26 = arith.muli %c_x0, %25 : index
      %core_tile_m = arith.addi %26, %c_y0 : index
      %27 = arith.constant 128 : index
      %28 = arith.ceildivui %27, %tile_m : index
      %29 = arith.constant 4 : index
      %trips_tile_m = arith.ceildivui %28, %29 : index
      %30 = arith.constant 0 : index
      %31 = arith.constant 1 : index
      scf.for %t_b = %30 to %trips_b step %31 {
        %32 = arith.muli %core_b, %trips_b : index
        %b_idx = arith.addi %32, %t_b : index
        %33 = arith.constant 0 : index
        %34 = arith.constant 1 : index
        scf.for %t_tile_m = %33 to %trips_tile_m step %34 {
          %35 = arith.muli %core_tile_m, %trips_tile_m : index
          %tile_m_idx = arith.addi %35, %t_tile_m : index
          %36 = arith.constant 0 : index
          %37 = arith.constant 1 : index
          scf.for %t_h = %36 to %trips_h step %37 {
            %38 = arith.muli %c_x1, %trips_h : index
            %h_idx = arith.addi %38, %t_h : index
            %39 = arith.cmpi ult, %b_idx, %19 : index
            %40 = arith.cmpi ult, %tile_m_idx, %28 : index
            %41 = arith.andi %39, %40 : i1
            %42 = arith.cmpi ult, %h_idx, %23 : index
            %43 = arith.andi %41, %42 : i1
            scf.if %43 {
              %44 = arith.constant 0xff800000 : f32
              %45 = loom.vb.reserve %vb_m_i : memref<?xf32, "L1">
              linalg.fill {loom.loc = "flash_attention.py:20"} ins(%44 : f32) outs(%45 : memref<?xf32, "L1">)
              loom.vb.commit %vb_m_i : memref<?xf32, "L1">
              %46 = arith.constant 0.000000e+00 : f32
              %47 = loom.vb.reserve %vb_l_i : memref<?xf32, "L1">
              linalg.fill {loom.loc = "flash_attention.py:21"} ins(%46 : f32) outs(%47 : memref<?xf32, "L1">)
              loom.vb.commit %vb_l_i : memref<?xf32, "L1">
              %48 = arith.constant 0.000000e+00 : f32
              %49 = loom.vb.reserve %vb_acc : memref<?x64xf32, "L1">
              linalg.fill {loom.loc = "flash_attention.py:22"} ins(%48 : f32) outs(%49 : memref<?x64xf32, "L1">)
              loom.vb.commit %vb_acc : memref<?x64xf32, "L1">
              %50 = arith.muli %tile_m_idx, %tile_m : index
              %51 = memref.subview %q[%b_idx, %h_idx, %50, 0] [1, 1, %tile_m, 64] [1, 1, 1, 1] {loom.loc = "flash_attention.py:23"} : memref<1x2x128x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
              %52 = loom.vb.reserve %vb_q_blk : memref<?x64xbf16, "L1">
              loom.copy %51, %52 {loom.loc = "flash_attention.py:23", mode = "unicast", group = [1 : i64, 1 : i64], src_space = "DRAM", dst_space = "L1"} : memref<?x64xbf16, strided<[64, 1], offset: ?>>, memref<?x64xbf16, "L1">
              loom.vb.commit %vb_q_blk : memref<?x64xbf16, "L1">
              %53 = arith.ceildivui %2, %tile_n : index
              %54 = arith.constant 0 : index
              %55 = loom.vb.acquire %vb_q_blk : memref<?x64xbf16, "L1">
              scf.for %tile_n_idx = %54 to %53 step %0 {
                %56 = arith.muli %tile_n_idx, %tile_n : index
                %57 = memref.subview %k[%b_idx, %h_idx, %56, 0] [1, 1, %tile_n, 64] [1, 1, 1, 1] {loom.loc = "flash_attention.py:25"} : memref<1x2x128x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
                %58 = loom.vb.reserve %vb_k_blk : memref<?x64xbf16, "L1">
                loom.copy %57, %58 {loom.loc = "flash_attention.py:25", mode = "column", group = [1 : i64, 2 : i64], spatial_reuse = ["tile_m"], temporal_reuse = ["t_tile_m"], src_space = "DRAM", dst_space = "L1"} : memref<?x64xbf16, strided<[64, 1], offset: ?>>, memref<?x64xbf16, "L1">
                loom.vb.commit %vb_k_blk : memref<?x64xbf16, "L1">
                %59 = memref.subview %v[%b_idx, %h_idx, %56, 0] [1, 1, %tile_n, 64] [1, 1, 1, 1] {loom.loc = "flash_attention.py:26"} : memref<1x2x128x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
                %60 = loom.vb.reserve %vb_v_blk : memref<?x64xbf16, "L1">
                loom.copy %59, %60 {loom.loc = "flash_attention.py:26", mode = "column", group = [1 : i64, 2 : i64], spatial_reuse = ["tile_m"], temporal_reuse = ["t_tile_m"], src_space = "DRAM", dst_space = "L1"} : memref<?x64xbf16, strided<[64, 1], offset: ?>>, memref<?x64xbf16, "L1">
                loom.vb.commit %vb_v_blk : memref<?x64xbf16, "L1">
                %61 = loom.vb.acquire %vb_k_blk : memref<?x64xbf16, "L1">
                %62 = loom.vb.reserve %vb_permute : memref<64x?xbf16, "L1">
                linalg.transpose ins(%61:memref<?x64xbf16, "L1">) outs(%62:memref<64x?xbf16, "L1">) permutation = [1, 0]
                loom.vb.commit %vb_permute : memref<64x?xbf16, "L1">
                loom.vb.release %vb_k_blk : memref<?x64xbf16, "L1">
                %63 = arith.constant 0.000000e+00 : f32
                %64 = loom.vb.reserve %vb_mm : memref<?x?xf32, "L1">
                linalg.fill {loom.loc = "flash_attention.py:27"} ins(%63 : f32) outs(%64 : memref<?x?xf32, "L1">)
                loom.vb.commit %vb_mm : memref<?x?xf32, "L1">
                %65 = loom.vb.acquire %vb_permute : memref<64x?xbf16, "L1">
                %66 = loom.vb.acquire %vb_mm : memref<?x?xf32, "L1">
                loom.vb.release %vb_mm : memref<?x?xf32, "L1">
                %67 = loom.vb.reserve %vb_mm : memref<?x?xf32, "L1">
                linalg.matmul {loom.loc = "flash_attention.py:27"} ins(%55, %65 : memref<?x64xbf16, "L1">, memref<64x?xbf16, "L1">) outs(%67 : memref<?x?xf32, "L1">)
                loom.vb.commit %vb_mm : memref<?x?xf32, "L1">
                loom.vb.release %vb_permute : memref<64x?xbf16, "L1">
                %68 = arith.constant 1.250000e-01 : f32
                %69 = loom.vb.acquire %vb_mm : memref<?x?xf32, "L1">
                loom.vb.release %vb_mm : memref<?x?xf32, "L1">
                %70 = loom.vb.reserve %vb_mm : memref<?x?xf32, "L1">
                linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%69 : memref<?x?xf32, "L1">) outs(%70 : memref<?x?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:27"} {
                ^bb0(%71: f32, %72: f32):
                  %73 = arith.mulf %71, %68 : f32
                  linalg.yield %73 : f32
                }
                loom.vb.commit %vb_mm : memref<?x?xf32, "L1">
                %74 = arith.constant 0xff800000 : f32
                %75 = loom.vb.reserve %vb_amax : memref<?xf32, "L1">
                linalg.fill {loom.loc = "flash_attention.py:28"} ins(%74 : f32) outs(%75 : memref<?xf32, "L1">)
                loom.vb.commit %vb_amax : memref<?xf32, "L1">
                %76 = loom.vb.acquire %vb_mm : memref<?x?xf32, "L1">
                %77 = loom.vb.acquire %vb_amax : memref<?xf32, "L1">
                loom.vb.release %vb_amax : memref<?xf32, "L1">
                %78 = loom.vb.reserve %vb_amax : memref<?xf32, "L1">
                linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%76 : memref<?x?xf32, "L1">) outs(%78 : memref<?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:28"} {
                ^bb0(%79: f32, %80: f32):
                  %81 = arith.maximumf %79, %80 : f32
                  linalg.yield %81 : f32
                }
                loom.vb.commit %vb_amax : memref<?xf32, "L1">
                %82 = loom.vb.acquire %vb_m_i : memref<?xf32, "L1">
                %83 = loom.vb.acquire %vb_amax : memref<?xf32, "L1">
                %84 = loom.vb.reserve %vb_m_new : memref<?xf32, "L1">
                linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%82, %83 : memref<?xf32, "L1">, memref<?xf32, "L1">) outs(%84 : memref<?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:28"} {
                ^bb0(%85: f32, %86: f32, %87: f32):
                  %88 = arith.maximumf %85, %86 : f32
                  linalg.yield %88 : f32
                }
                loom.vb.commit %vb_m_new : memref<?xf32, "L1">
                loom.vb.release %vb_amax : memref<?xf32, "L1">
                %89 = loom.vb.acquire %vb_m_new : memref<?xf32, "L1">
                loom.vb.release %vb_mm : memref<?x?xf32, "L1">
                %90 = loom.vb.reserve %vb_mm : memref<?x?xf32, "L1">
                linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%76, %89 : memref<?x?xf32, "L1">, memref<?xf32, "L1">) outs(%90 : memref<?x?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:29"} {
                ^bb0(%91: f32, %92: f32, %93: f32):
                  %94 = arith.subf %91, %92 : f32
                  linalg.yield %94 : f32
                }
                loom.vb.commit %vb_mm : memref<?x?xf32, "L1">
                %95 = loom.vb.acquire %vb_mm : memref<?x?xf32, "L1">
                loom.vb.release %vb_mm : memref<?x?xf32, "L1">
                %96 = loom.vb.reserve %vb_mm : memref<?x?xf32, "L1">
                linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%95 : memref<?x?xf32, "L1">) outs(%96 : memref<?x?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:29"} {
                ^bb0(%97: f32, %98: f32):
                  %99 = math.exp %97 : f32
                  linalg.yield %99 : f32
                }
                loom.vb.commit %vb_mm : memref<?x?xf32, "L1">
                loom.vb.release %vb_m_i : memref<?xf32, "L1">
                %100 = loom.vb.reserve %vb_m_i : memref<?xf32, "L1">
                linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%82, %89 : memref<?xf32, "L1">, memref<?xf32, "L1">) outs(%100 : memref<?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:30"} {
                ^bb0(%101: f32, %102: f32, %103: f32):
                  %104 = arith.subf %101, %102 : f32
                  linalg.yield %104 : f32
                }
                loom.vb.commit %vb_m_i : memref<?xf32, "L1">
                %105 = loom.vb.acquire %vb_m_i : memref<?xf32, "L1">
                loom.vb.release %vb_m_i : memref<?xf32, "L1">
                %106 = loom.vb.reserve %vb_m_i : memref<?xf32, "L1">
                linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%105 : memref<?xf32, "L1">) outs(%106 : memref<?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:30"} {
                ^bb0(%107: f32, %108: f32):
                  %109 = math.exp %107 : f32
                  linalg.yield %109 : f32
                }
                loom.vb.commit %vb_m_i : memref<?xf32, "L1">
                %110 = loom.vb.acquire %vb_l_i : memref<?xf32, "L1">
                %111 = loom.vb.acquire %vb_m_i : memref<?xf32, "L1">
                loom.vb.release %vb_l_i : memref<?xf32, "L1">
                %112 = loom.vb.reserve %vb_l_i : memref<?xf32, "L1">
                linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%110, %111 : memref<?xf32, "L1">, memref<?xf32, "L1">) outs(%112 : memref<?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:31"} {
                ^bb0(%113: f32, %114: f32, %115: f32):
                  %116 = arith.mulf %113, %114 : f32
                  linalg.yield %116 : f32
                }
                loom.vb.commit %vb_l_i : memref<?xf32, "L1">
                %117 = arith.constant 0.000000e+00 : f32
                %118 = loom.vb.reserve %vb_sum : memref<?xf32, "L1">
                linalg.fill {loom.loc = "flash_attention.py:31"} ins(%117 : f32) outs(%118 : memref<?xf32, "L1">)
                loom.vb.commit %vb_sum : memref<?xf32, "L1">
                %119 = loom.vb.acquire %vb_mm : memref<?x?xf32, "L1">
                %120 = loom.vb.acquire %vb_sum : memref<?xf32, "L1">
                loom.vb.release %vb_sum : memref<?xf32, "L1">
                %121 = loom.vb.reserve %vb_sum : memref<?xf32, "L1">
                linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%119 : memref<?x?xf32, "L1">) outs(%121 : memref<?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:31"} {
                ^bb0(%122: f32, %123: f32):
                  %124 = arith.addf %122, %123 : f32
                  linalg.yield %124 : f32
                }
                loom.vb.commit %vb_sum : memref<?xf32, "L1">
                %125 = loom.vb.acquire %vb_l_i : memref<?xf32, "L1">
                %126 = loom.vb.acquire %vb_sum : memref<?xf32, "L1">
                loom.vb.release %vb_l_i : memref<?xf32, "L1">
                %127 = loom.vb.reserve %vb_l_i : memref<?xf32, "L1">
                linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%125, %126 : memref<?xf32, "L1">, memref<?xf32, "L1">) outs(%127 : memref<?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:31"} {
                ^bb0(%128: f32, %129: f32, %130: f32):
                  %131 = arith.addf %128, %129 : f32
                  linalg.yield %131 : f32
                }
                loom.vb.commit %vb_l_i : memref<?xf32, "L1">
                loom.vb.release %vb_sum : memref<?xf32, "L1">
                %132 = loom.vb.acquire %vb_acc : memref<?x64xf32, "L1">
                loom.vb.release %vb_acc : memref<?x64xf32, "L1">
                %133 = loom.vb.reserve %vb_acc : memref<?x64xf32, "L1">
                linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%132, %111 : memref<?x64xf32, "L1">, memref<?xf32, "L1">) outs(%133 : memref<?x64xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:32"} {
                ^bb0(%134: f32, %135: f32, %136: f32):
                  %137 = arith.mulf %134, %135 : f32
                  linalg.yield %137 : f32
                }
                loom.vb.commit %vb_acc : memref<?x64xf32, "L1">
                loom.vb.release %vb_m_i : memref<?xf32, "L1">
                %138 = loom.vb.reserve %vb_exp_bf16 : memref<?x?xbf16, "L1">
                linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%119 : memref<?x?xf32, "L1">) outs(%138 : memref<?x?xbf16, "L1">) attrs =  {loom.loc = "flash_attention.py:32"} {
                ^bb0(%139: f32, %140: bf16):
                  %141 = arith.truncf %139 : f32 to bf16
                  linalg.yield %141 : bf16
                }
                loom.vb.commit %vb_exp_bf16 : memref<?x?xbf16, "L1">
                loom.vb.release %vb_mm : memref<?x?xf32, "L1">
                %142 = loom.vb.acquire %vb_v_blk : memref<?x64xbf16, "L1">
                %143 = loom.vb.acquire %vb_acc : memref<?x64xf32, "L1">
                %144 = loom.vb.acquire %vb_exp_bf16 : memref<?x?xbf16, "L1">
                loom.vb.release %vb_acc : memref<?x64xf32, "L1">
                %145 = loom.vb.reserve %vb_acc : memref<?x64xf32, "L1">
                linalg.matmul {loom.loc = "flash_attention.py:32"} ins(%144, %142 : memref<?x?xbf16, "L1">, memref<?x64xbf16, "L1">) outs(%145 : memref<?x64xf32, "L1">)
                loom.vb.commit %vb_acc : memref<?x64xf32, "L1">
                loom.vb.release %vb_v_blk : memref<?x64xbf16, "L1">
                loom.vb.release %vb_exp_bf16 : memref<?x?xbf16, "L1">
                %146 = loom.vb.reserve %vb_m_i : memref<?xf32, "L1">
                linalg.copy ins(%89 : memref<?xf32, "L1">) outs(%146 : memref<?xf32, "L1">)
                loom.vb.commit %vb_m_i : memref<?xf32, "L1">
                loom.vb.release %vb_m_new : memref<?xf32, "L1">
              } {loom.loc = "flash_attention.py:24", loom.combine = "lse", loom.carried_roles = ["max", "rescaled", "rescaled"], loom.carried = ["m_i", "l_i", "acc"]}
              loom.vb.release %vb_q_blk : memref<?x64xbf16, "L1">
              %147 = loom.vb.acquire %vb_m_i : memref<?xf32, "L1">
              loom.vb.release %vb_m_i : memref<?xf32, "L1">
              %148 = loom.vb.acquire %vb_l_i : memref<?xf32, "L1">
              %149 = loom.vb.acquire %vb_acc : memref<?x64xf32, "L1">
              %150 = loom.vb.reserve %vb_div_bf16 : memref<?x64xbf16, "L1">
              linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%149, %148 : memref<?x64xf32, "L1">, memref<?xf32, "L1">) outs(%150 : memref<?x64xbf16, "L1">) attrs =  {loom.loc = "flash_attention.py:34"} {
              ^bb0(%151: f32, %152: f32, %153: bf16):
                %154 = arith.divf %151, %152 : f32
                %155 = arith.truncf %154 : f32 to bf16
                linalg.yield %155 : bf16
              }
              loom.vb.commit %vb_div_bf16 : memref<?x64xbf16, "L1">
              loom.vb.release %vb_l_i : memref<?xf32, "L1">
              loom.vb.release %vb_acc : memref<?x64xf32, "L1">
              %156 = memref.subview %out[%b_idx, %h_idx, %50, 0] [1, 1, %tile_m, 64] [1, 1, 1, 1] {loom.loc = "flash_attention.py:34"} : memref<1x2x128x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
              %157 = loom.vb.acquire %vb_div_bf16 : memref<?x64xbf16, "L1">
              loom.copy %157, %156 {loom.loc = "flash_attention.py:34", mode = "unicast", group = [1 : i64, 1 : i64], src_space = "L1", dst_space = "DRAM"} : memref<?x64xbf16, "L1">, memref<?x64xbf16, strided<[64, 1], offset: ?>>
              loom.vb.release %vb_div_bf16 : memref<?x64xbf16, "L1">
            }
          }
        }
      }
      affine.yield
    }) {loom.candidate = "x2x2_y2.bmh.q:unicast.k:column.v:column", loom.view = "x2x2_y2"} : () -> ()
    func.return
  }
}
