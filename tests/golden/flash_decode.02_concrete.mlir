builtin.module {
  func.func @flash_decode(%q: memref<2x2x1x64xbf16>, %k: memref<2x2x256x64xbf16>, %v: memref<2x2x256x64xbf16>, %out: memref<2x2x1x64xbf16>) attributes {loom.source = "examples/flash_decode.py", loom.outputs = ["out"]} {
    %0 = arith.constant 1 : index
    %tile_n = loom.sym @tile_n {upper_bound = 256 : i64, reduction, masked} : index
    %1 = arith.constant 2 : index
    "affine.parallel"(%1, %1) <{reductions = [], lowerBoundsMap = affine_map<() -> (0, 0)>, lowerBoundsGroups = dense<1> : vector<2xi32>, upperBoundsMap = affine_map<()[s0, s1] -> (s0, s1)>, upperBoundsGroups = dense<1> : vector<2xi32>, steps = [1 : i64, 1 : i64]}> ({
    ^bb0(%b_idx: index, %h_idx: index):
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
      %15 = arith.constant 0xff800000 : f32
      %16 = loom.vb.reserve %vb_m_i : memref<1xf32, "L1">
      linalg.fill {loom.loc = "flash_decode.py:26"} ins(%15 : f32) outs(%16 : memref<1xf32, "L1">)
      loom.vb.commit %vb_m_i : memref<1xf32, "L1">
      %17 = arith.constant 0.000000e+00 : f32
      %18 = loom.vb.reserve %vb_l_i : memref<1xf32, "L1">
      linalg.fill {loom.loc = "flash_decode.py:27"} ins(%17 : f32) outs(%18 : memref<1xf32, "L1">)
      loom.vb.commit %vb_l_i : memref<1xf32, "L1">
      %19 = arith.constant 0.000000e+00 : f32
      %20 = loom.vb.reserve %vb_acc : memref<1x64xf32, "L1">
      linalg.fill {loom.loc = "flash_decode.py:28"} ins(%19 : f32) outs(%20 : memref<1x64xf32, "L1">)
      loom.vb.commit %vb_acc : memref<1x64xf32, "L1">
      %21 = memref.subview %q[%b_idx, %h_idx, 0, 0] [1, 1, 1, 64] [1, 1, 1, 1] {loom.loc = "flash_decode.py:29"} : memref<2x2x1x64xbf16> to memref<1x64xbf16, strided<[64, 1], offset: ?>>
      %22 = loom.vb.reserve %vb_q_blk : memref<1x64xbf16, "L1">
      loom.copy %21, %22 {loom.loc = "flash_decode.py:29", src_space = "DRAM", dst_space = "L1"} : memref<1x64xbf16, strided<[64, 1], offset: ?>>, memref<1x64xbf16, "L1">
      loom.vb.commit %vb_q_blk : memref<1x64xbf16, "L1">
      %23 = arith.constant 256 : index
      %24 = arith.ceildivui %23, %tile_n : index
      %25 = arith.constant 0 : index
      %26 = loom.vb.acquire %vb_q_blk : memref<1x64xbf16, "L1">
      scf.for %tile_n_idx = %25 to %24 step %0 {
        %27 = arith.muli %tile_n_idx, %tile_n : index
        %28 = memref.subview %k[%b_idx, %h_idx, %27, 0] [1, 1, %tile_n, 64] [1, 1, 1, 1] {loom.loc = "flash_decode.py:31"} : memref<2x2x256x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
        %29 = loom.vb.reserve %vb_k_blk : memref<?x64xbf16, "L1">
        loom.copy %28, %29 {loom.loc = "flash_decode.py:31", src_space = "DRAM", dst_space = "L1"} : memref<?x64xbf16, strided<[64, 1], offset: ?>>, memref<?x64xbf16, "L1">
        loom.vb.commit %vb_k_blk : memref<?x64xbf16, "L1">
        %30 = memref.subview %v[%b_idx, %h_idx, %27, 0] [1, 1, %tile_n, 64] [1, 1, 1, 1] {loom.loc = "flash_decode.py:32"} : memref<2x2x256x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
        %31 = loom.vb.reserve %vb_v_blk : memref<?x64xbf16, "L1">
        loom.copy %30, %31 {loom.loc = "flash_decode.py:32", src_space = "DRAM", dst_space = "L1"} : memref<?x64xbf16, strided<[64, 1], offset: ?>>, memref<?x64xbf16, "L1">
        loom.vb.commit %vb_v_blk : memref<?x64xbf16, "L1">
        %32 = loom.vb.acquire %vb_k_blk : memref<?x64xbf16, "L1">
        %33 = loom.vb.reserve %vb_permute : memref<64x?xbf16, "L1">
        linalg.transpose ins(%32:memref<?x64xbf16, "L1">) outs(%33:memref<64x?xbf16, "L1">) permutation = [1, 0]
        loom.vb.commit %vb_permute : memref<64x?xbf16, "L1">
        loom.vb.release %vb_k_blk : memref<?x64xbf16, "L1">
        %34 = arith.constant 0.000000e+00 : f32
        %35 = loom.vb.reserve %vb_mm : memref<1x?xf32, "L1">
        linalg.fill {loom.loc = "flash_decode.py:33"} ins(%34 : f32) outs(%35 : memref<1x?xf32, "L1">)
        loom.vb.commit %vb_mm : memref<1x?xf32, "L1">
        %36 = loom.vb.acquire %vb_permute : memref<64x?xbf16, "L1">
        %37 = loom.vb.acquire %vb_mm : memref<1x?xf32, "L1">
        loom.vb.release %vb_mm : memref<1x?xf32, "L1">
        %38 = loom.vb.reserve %vb_mm : memref<1x?xf32, "L1">
        linalg.matmul {loom.loc = "flash_decode.py:33"} ins(%26, %36 : memref<1x64xbf16, "L1">, memref<64x?xbf16, "L1">) outs(%38 : memref<1x?xf32, "L1">)
        loom.vb.commit %vb_mm : memref<1x?xf32, "L1">
        loom.vb.release %vb_permute : memref<64x?xbf16, "L1">
        %39 = arith.constant 1.250000e-01 : f32
        %40 = loom.vb.acquire %vb_mm : memref<1x?xf32, "L1">
        loom.vb.release %vb_mm : memref<1x?xf32, "L1">
        %41 = loom.vb.reserve %vb_mm : memref<1x?xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%40 : memref<1x?xf32, "L1">) outs(%41 : memref<1x?xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:33"} {
        ^bb0(%42: f32, %43: f32):
          %44 = arith.mulf %42, %39 : f32
          linalg.yield %44 : f32
        }
        loom.vb.commit %vb_mm : memref<1x?xf32, "L1">
        %45 = arith.constant 0xff800000 : f32
        %46 = loom.vb.reserve %vb_amax : memref<1xf32, "L1">
        linalg.fill {loom.loc = "flash_decode.py:34"} ins(%45 : f32) outs(%46 : memref<1xf32, "L1">)
        loom.vb.commit %vb_amax : memref<1xf32, "L1">
        %47 = loom.vb.acquire %vb_mm : memref<1x?xf32, "L1">
        %48 = loom.vb.acquire %vb_amax : memref<1xf32, "L1">
        loom.vb.release %vb_amax : memref<1xf32, "L1">
        %49 = loom.vb.reserve %vb_amax : memref<1xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%47 : memref<1x?xf32, "L1">) outs(%49 : memref<1xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:34"} {
        ^bb0(%50: f32, %51: f32):
          %52 = arith.maximumf %50, %51 : f32
          linalg.yield %52 : f32
        }
        loom.vb.commit %vb_amax : memref<1xf32, "L1">
        %53 = loom.vb.acquire %vb_m_i : memref<1xf32, "L1">
        %54 = loom.vb.acquire %vb_amax : memref<1xf32, "L1">
        %55 = loom.vb.reserve %vb_m_new : memref<1xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%53, %54 : memref<1xf32, "L1">, memref<1xf32, "L1">) outs(%55 : memref<1xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:34"} {
        ^bb0(%56: f32, %57: f32, %58: f32):
          %59 = arith.maximumf %56, %57 : f32
          linalg.yield %59 : f32
        }
        loom.vb.commit %vb_m_new : memref<1xf32, "L1">
        loom.vb.release %vb_amax : memref<1xf32, "L1">
        %60 = loom.vb.acquire %vb_m_new : memref<1xf32, "L1">
        loom.vb.release %vb_mm : memref<1x?xf32, "L1">
        %61 = loom.vb.reserve %vb_mm : memref<1x?xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%47, %60 : memref<1x?xf32, "L1">, memref<1xf32, "L1">) outs(%61 : memref<1x?xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:35"} {
        ^bb0(%62: f32, %63: f32, %64: f32):
          %65 = arith.subf %62, %63 : f32
          linalg.yield %65 : f32
        }
        loom.vb.commit %vb_mm : memref<1x?xf32, "L1">
        %66 = loom.vb.acquire %vb_mm : memref<1x?xf32, "L1">
        loom.vb.release %vb_mm : memref<1x?xf32, "L1">
        %67 = loom.vb.reserve %vb_mm : memref<1x?xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%66 : memref<1x?xf32, "L1">) outs(%67 : memref<1x?xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:35"} {
        ^bb0(%68: f32, %69: f32):
          %70 = math.exp %68 : f32
          linalg.yield %70 : f32
        }
        loom.vb.commit %vb_mm : memref<1x?xf32, "L1">
        loom.vb.release %vb_m_i : memref<1xf32, "L1">
        %71 = loom.vb.reserve %vb_m_i : memref<1xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%53, %60 : memref<1xf32, "L1">, memref<1xf32, "L1">) outs(%71 : memref<1xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:36"} {
        ^bb0(%72: f32, %73: f32, %74: f32):
          %75 = arith.subf %72, %73 : f32
          linalg.yield %75 : f32
        }
        loom.vb.commit %vb_m_i : memref<1xf32, "L1">
        %76 = loom.vb.acquire %vb_m_i : memref<1xf32, "L1">
        loom.vb.release %vb_m_i : memref<1xf32, "L1">
        %77 = loom.vb.reserve %vb_m_i : memref<1xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%76 : memref<1xf32, "L1">) outs(%77 : memref<1xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:36"} {
        ^bb0(%78: f32, %79: f32):
          %80 = math.exp %78 : f32
          linalg.yield %80 : f32
        }
        loom.vb.commit %vb_m_i : memref<1xf32, "L1">
        %81 = loom.vb.acquire %vb_l_i : memref<1xf32, "L1">
        %82 = loom.vb.acquire %vb_m_i : memref<1xf32, "L1">
        loom.vb.release %vb_l_i : memref<1xf32, "L1">
        %83 = loom.vb.reserve %vb_l_i : memref<1xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%81, %82 : memref<1xf32, "L1">, memref<1xf32, "L1">) outs(%83 : memref<1xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:37"} {
        ^bb0(%84: f32, %85: f32, %86: f32):
          %87 = arith.mulf %84, %85 : f32
          linalg.yield %87 : f32
        }
        loom.vb.commit %vb_l_i : memref<1xf32, "L1">
        %88 = arith.constant 0.000000e+00 : f32
        %89 = loom.vb.reserve %vb_sum : memref<1xf32, "L1">
        linalg.fill {loom.loc = "flash_decode.py:37"} ins(%88 : f32) outs(%89 : memref<1xf32, "L1">)
        loom.vb.commit %vb_sum : memref<1xf32, "L1">
        %90 = loom.vb.acquire %vb_mm : memref<1x?xf32, "L1">
        %91 = loom.vb.acquire %vb_sum : memref<1xf32, "L1">
        loom.vb.release %vb_sum : memref<1xf32, "L1">
        %92 = loom.vb.reserve %vb_sum : memref<1xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%90 : memref<1x?xf32, "L1">) outs(%92 : memref<1xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:37"} {
        ^bb0(%93: f32, %94: f32):
          %95 = arith.addf %93, %94 : f32
          linalg.yield %95 : f32
        }
        loom.vb.commit %vb_sum : memref<1xf32, "L1">
        %96 = loom.vb.acquire %vb_l_i : memref<1xf32, "L1">
        %97 = loom.vb.acquire %vb_sum : memref<1xf32, "L1">
        loom.vb.release %vb_l_i : memref<1xf32, "L1">
        %98 = loom.vb.reserve %vb_l_i : memref<1xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%96, %97 : memref<1xf32, "L1">, memref<1xf32, "L1">) outs(%98 : memref<1xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:37"} {
        ^bb0(%99: f32, %100: f32, %101: f32):
          %102 = arith.addf %99, %100 : f32
          linalg.yield %102 : f32
        }
        loom.vb.commit %vb_l_i : memref<1xf32, "L1">
        loom.vb.release %vb_sum : memref<1xf32, "L1">
        %103 = loom.vb.acquire %vb_acc : memref<1x64xf32, "L1">
        loom.vb.release %vb_acc : memref<1x64xf32, "L1">
        %104 = loom.vb.reserve %vb_acc : memref<1x64xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%103, %82 : memref<1x64xf32, "L1">, memref<1xf32, "L1">) outs(%104 : memref<1x64xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:38"} {
        ^bb0(%105: f32, %106: f32, %107: f32):
          %108 = arith.mulf %105, %106 : f32
          linalg.yield %108 : f32
        }
        loom.vb.commit %vb_acc : memref<1x64xf32, "L1">
        loom.vb.release %vb_m_i : memref<1xf32, "L1">
        %109 = loom.vb.reserve %vb_exp_bf16 : memref<1x?xbf16, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%90 : memref<1x?xf32, "L1">) outs(%109 : memref<1x?xbf16, "L1">) attrs =  {loom.loc = "flash_decode.py:38"} {
        ^bb0(%110: f32, %111: bf16):
          %112 = arith.truncf %110 : f32 to bf16
          linalg.yield %112 : bf16
        }
        loom.vb.commit %vb_exp_bf16 : memref<1x?xbf16, "L1">
        loom.vb.release %vb_mm : memref<1x?xf32, "L1">
        %113 = loom.vb.acquire %vb_v_blk : memref<?x64xbf16, "L1">
        %114 = loom.vb.acquire %vb_acc : memref<1x64xf32, "L1">
        %115 = loom.vb.acquire %vb_exp_bf16 : memref<1x?xbf16, "L1">
        loom.vb.release %vb_acc : memref<1x64xf32, "L1">
        %116 = loom.vb.reserve %vb_acc : memref<1x64xf32, "L1">
        linalg.matmul {loom.loc = "flash_decode.py:38"} ins(%115, %113 : memref<1x?xbf16, "L1">, memref<?x64xbf16, "L1">) outs(%116 : memref<1x64xf32, "L1">)
        loom.vb.commit %vb_acc : memref<1x64xf32, "L1">
        loom.vb.release %vb_v_blk : memref<?x64xbf16, "L1">
        loom.vb.release %vb_exp_bf16 : memref<1x?xbf16, "L1">
        %117 = loom.vb.reserve %vb_m_i : memref<1xf32, "L1">
        linalg.copy ins(%60 : memref<1xf32, "L1">) outs(%117 : memref<1xf32, "L1">)
        loom.vb.commit %vb_m_i : memref<1xf32, "L1">
        loom.vb.release %vb_m_new : memref<1xf32, "L1">
      } {loom.loc = "flash_decode.py:30", loom.combine = "lse", loom.carried_roles = ["max", "rescaled", "rescaled"], loom.carried = ["m_i", "l_i", "acc"]}
      loom.vb.release %vb_q_blk : memref<1x64xbf16, "L1">
      %118 = loom.vb.acquire %vb_m_i : memref<1xf32, "L1">
      loom.vb.release %vb_m_i : memref<1xf32, "L1">
      %119 = loom.vb.acquire %vb_l_i : memref<1xf32, "L1">
      %120 = loom.vb.acquire %vb_acc : memref<1x64xf32, "L1">
      %121 = loom.vb.reserve %vb_div_bf16 : memref<1x64xbf16, "L1">
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%120, %119 : memref<1x64xf32, "L1">, memref<1xf32, "L1">) outs(%121 : memref<1x64xbf16, "L1">) attrs =  {loom.loc = "flash_decode.py:40"} {
      ^bb0(%122: f32, %123: f32, %124: bf16):
        %125 = arith.divf %122, %123 : f32
        %126 = arith.truncf %125 : f32 to bf16
        linalg.yield %126 : bf16
      }
      loom.vb.commit %vb_div_bf16 : memref<1x64xbf16, "L1">
      loom.vb.release %vb_l_i : memref<1xf32, "L1">
      loom.vb.release %vb_acc : memref<1x64xf32, "L1">
      %127 = memref.subview %out[%b_idx, %h_idx, 0, 0] [1, 1, 1, 64] [1, 1, 1, 1] {loom.loc = "flash_decode.py:40"} : memref<2x2x1x64xbf16> to memref<1x64xbf16, strided<[64, 1], offset: ?>>
      %128 = loom.vb.acquire %vb_div_bf16 : memref<1x64xbf16, "L1">
      loom.copy %128, %127 {loom.loc = "flash_decode.py:40", src_space = "L1", dst_space = "DRAM"} : memref<1x64xbf16, "L1">, memref<1x64xbf16, strided<[64, 1], offset: ?>>
      loom.vb.release %vb_div_bf16 : memref<1x64xbf16, "L1">
      affine.yield
    }) {loom.grid = ["b", "h"]} : (index, index) -> ()
    func.return
  }
}
