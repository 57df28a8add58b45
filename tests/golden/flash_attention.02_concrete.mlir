builtin.module {
  func.func @flash_attention(%q: memref<1x2x128x64xbf16>, %k: memref<1x2x128x64xbf16>, %v: memref<1x2x128x64xbf16>, %out: memref<1x2x128x64xbf16>) attributes {loom.source = "examples/flash_attention.py", loom.outputs = ["out"]} {
    %0 = arith.constant 1 : index
    %tile_m = loom.sym @tile_m {upper_bound = 128 : i64} : index
    %tile_n = loom.sym @tile_n {upper_bound = 128 : i64, reduction, masked} : index
    %1 = arith.constant 2 : index
    %2 = arith.constant 128 : index
    %3 = arith.ceildivui %2, %tile_m : index
    "affine.parallel"(%0, %1, %3) <{reductions = [], lowerBoundsMap = affine_map<() -> (0, 0, 0)>, lowerBoundsGroups = dense<1> : vector<3xi32>, upperBoundsMap = affine_map<()[s0, s1, s2] -> (s0, s1, s2)>, upperBoundsGroups = dense<1> : vector<3xi32>, steps = [1 : i64, 1 : i64, 1 : i64]}> ({
    ^bb0(%b_idx: index, %h_idx: index, %tile_m_idx: index):
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
      %17 = arith.constant 0xff800000 : f32
      %18 = loom.vb.reserve %vb_m_i : memref<?xf32, "L1">
      linalg.fill {loom.loc = "flash_attention.py:20"} ins(%17 : f32) outs(%18 : memref<?xf32, "L1">)
      loom.vb.commit %vb_m_i : memref<?xf32, "L1">
      %19 = arith.constant 0.000000e+00 : f32
      %20 = loom.vb.reserve %vb_l_i : memref<?xf32, "L1">
      linalg.fill {loom.loc = "flash_attention.py:21"} ins(%19 : f32) outs(%20 : memref<?xf32, "L1">)
      loom.vb.commit %vb_l_i : memref<?xf32, "L1">
      %21 = arith.constant 0.000000e+00 : f32
      %22 = loom.vb.reserve %vb_acc : memref<?x64xf32, "L1">
      linalg.fill {loom.loc = "flash_attention.py:22"} ins(%21 : f32) outs(%22 : memref<?x64xf32, "L1">)
      loom.vb.commit %vb_acc : memref<?x64xf32, "L1">
      %23 = arith.muli %tile_m_idx, %tile_m : index
      %24 = memref.subview %q[%b_idx, %h_idx, %23, 0] [1, 1, %tile_m, 64] [1, 1, 1, 1] {loom.loc = "flash_attention.py:23"} : memref<1x2x128x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
      %25 = loom.vb.reserve %vb_q_blk : memref<?x64xbf16, "L1">
      loom.copy %24, %25 {loom.loc = "flash_attention.py:23", src_space = "DRAM", dst_space = "L1"} : memref<?x64xbf16, strided<[64, 1], offset: ?>>, memref<?x64xbf16, "L1">
      loom.vb.commit %vb_q_blk : memref<?x64xbf16, "L1">
      %26 = arith.ceildivui %2, %tile_n : index
      %27 = arith.constant 0 : index
      %28 = loom.vb.acquire %vb_q_blk : memref<?x64xbf16, "L1">
      scf.for %tile_n_idx = %27 to %26 step %0 {
        %29 = arith.muli %tile_n_idx, %tile_n : index
        %30 = memref.subview %k[%b_idx, %h_idx, %29, 0] [1, 1, %tile_n, 64] [1, 1, 1, 1] {loom.loc = "flash_attention.py:25"} : memref<1x2x128x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
        %31 = loom.vb.reserve %vb_k_blk : memref<?x64xbf16, "L1">
        loom.copy %30, %31 {loom.loc = "flash_attention.py:25", src_space = "DRAM", dst_space = "L1"} : memref<?x64xbf16, strided<[64, 1], offset: ?>>, memref<?x64xbf16, "L1">
        loom.vb.commit %vb_k_blk : memref<?x64xbf16, "L1">
        %32 = memref.subview %v[%b_idx, %h_idx, %29, 0] [1, 1, %tile_n, 64] [1, 1, 1, 1] {loom.loc = "flash_attention.py:26"} : memref<1x2x128x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
        %33 = loom.vb.reserve %vb_v_blk : memref<?x64xbf16, "L1">
        loom.copy %32, %33 {loom.loc = "flash_attention.py:26", src_space = "DRAM", dst_space = "L1"} : memref<?x64xbf16, strided<[64, 1], offset: ?>>, memref<?x64xbf16, "L1">
        loom.vb.commit %vb_v_blk : memref<?x64xbf16, "L1">
        %34 = loom.vb.acquire %vb_k_blk : memref<?x64xbf16, "L1">
        %35 = loom.vb.reserve %vb_permute : memref<64x?xbf16, "L1">
        linalg.transpose ins(%34:memref<?x64xbf16, "L1">) outs(%35:memref<64x?xbf16, "L1">) permutation = [1, 0]
        loom.vb.commit %vb_permute : memref<64x?xbf16, "L1">
        loom.vb.release %vb_k_blk : memref<?x64xbf16, "L1">
        %36 = arith.constant 0.000000e+00 : f32
        %37 = loom.vb.reserve %vb_mm : memref<?x?xf32, "L1">
        linalg.fill {loom.loc = "flash_attention.py:27"} ins(%36 : f32) outs(%37 : memref<?x?xf32, "L1">)
        loom.vb.commit %vb_mm : memref<?x?xf32, "L1">
        %38 = loom.vb.acquire %vb_permute : memref<64x?xbf16, "L1">
        %39 = loom.vb.acquire %vb_mm : memref<?x?xf32, "L1">
        loom.vb.release %vb_mm : memref<?x?xf32, "L1">
        %40 = loom.vb.reserve %vb_mm : memref<?x?xf32, "L1">
        linalg.matmul {loom.loc = "flash_attention.py:27"} ins(%28, %38 : memref<?x64xbf16, "L1">, memref<64x?xbf16, "L1">) outs(%40 : memref<?x?xf32, "L1">)
        loom.vb.commit %vb_mm : memref<?x?xf32, "L1">
        loom.vb.release %vb_permute : memref<64x?xbf16, "L1">
        %41 = arith.constant 1.250000e-01 : f32
        %42 = loom.vb.acquire %vb_mm : memref<?x?xf32, "L1">
        loom.vb.release %vb_mm : memref<?x?xf32, "L1">
        %43 = loom.vb.reserve %vb_mm : memref<?x?xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%42 : memref<?x?xf32, "L1">) outs(%43 : memref<?x?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:27"} {
        ^bb0(%44: f32, %45: f32):
          %46 = arith.mulf %44, %41 : f32
          linalg.yield %46 : f32
        }
        loom.vb.commit %vb_mm : memref<?x?xf32, "L1">
        %47 = arith.constant 0xff800000 : f32
        %48 = loom.vb.reserve %vb_amax : memref<?xf32, "L1">
        linalg.fill {loom.loc = "flash_attention.py:28"} ins(%47 : f32) outs(%48 : memref<?xf32, "L1">)
        loom.vb.commit %vb_amax : memref<?xf32, "L1">
        %49 = loom.vb.acquire %vb_mm : memref<?x?xf32, "L1">
        %50 = loom.vb.acquire %vb_amax : memref<?xf32, "L1">
        loom.vb.release %vb_amax : memref<?xf32, "L1">
        %51 = loom.vb.reserve %vb_amax : memref<?xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%49 : memref<?x?xf32, "L1">) outs(%51 : memref<?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:28"} {
        ^bb0(%52: f32, %53: f32):
          %54 = arith.maximumf %52, %53 : f32
          linalg.yield %54 : f32
        }
        loom.vb.commit %vb_amax : memref<?xf32, "L1">
        %55 = loom.vb.acquire %vb_m_i : memref<?xf32, "L1">
        %56 = loom.vb.acquire %vb_amax : memref<?xf32, "L1">
        %57 = loom.vb.reserve %vb_m_new : memref<?xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%55, %56 : memref<?xf32, "L1">, memref<?xf32, "L1">) outs(%57 : memref<?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:28"} {
        ^bb0(%58: f32, %59: f32, %60: f32):
          %61 = arith.maximumf %58, %59 : f32
          linalg.yield %61 : f32
        }
        loom.vb.commit %vb_m_new : memref<?xf32, "L1">
        loom.vb.release %vb_amax : memref<?xf32, "L1">
        %62 = loom.vb.acquire %vb_m_new : memref<?xf32, "L1">
        loom.vb.release %vb_mm : memref<?x?xf32, "L1">
        %63 = loom.vb.reserve %vb_mm : memref<?x?xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%49, %62 : memref<?x?xf32, "L1">, memref<?xf32, "L1">) outs(%63 : memref<?x?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:29"} {
        ^bb0(%64: f32, %65: f32, %66: f32):
          %67 = arith.subf %64, %65 : f32
          linalg.yield %67 : f32
        }
        loom.vb.commit %vb_mm : memref<?x?xf32, "L1">
        %68 = loom.vb.acquire %vb_mm : memref<?x?xf32, "L1">
        loom.vb.release %vb_mm : memref<?x?xf32, "L1">
        %69 = loom.vb.reserve %vb_mm : memref<?x?xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%68 : memref<?x?xf32, "L1">) outs(%69 : memref<?x?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:29"} {
        ^bb0(%70: f32, %71: f32):
          %72 = math.exp %70 : f32
          linalg.yield %72 : f32
        }
        loom.vb.commit %vb_mm : memref<?x?xf32, "L1">
        loom.vb.release %vb_m_i : memref<?xf32, "L1">
        %73 = loom.vb.reserve %vb_m_i : memref<?xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%55, %62 : memref<?xf32, "L1">, memref<?xf32, "L1">) outs(%73 : memref<?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:30"} {
        ^bb0(%74: f32, %75: f32, %76: f32):
          %77 = arith.subf %74, %75 : f32
          linalg.yield %77 : f32
        }
        loom.vb.commit %vb_m_i : memref<?xf32, "L1">
        %78 = loom.vb.acquire %vb_m_i : memref<?xf32, "L1">
        loom.vb.release %vb_m_i : memref<?xf32, "L1">
        %79 = loom.vb.reserve %vb_m_i : memref<?xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%78 : memref<?xf32, "L1">) outs(%79 : memref<?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:30"} {
        ^bb0(%80: f32, %81: f32):
          %82 = math.exp %80 : f32
          linalg.yield %82 : f32
        }
        loom.vb.commit %vb_m_i : memref<?xf32, "L1">
        %83 = loom.vb.acquire %vb_l_i : memref<?xf32, "L1">
        %84 = loom.vb.acquire %vb_m_i : memref<?xf32, "L1">
        loom.vb.release %vb_l_i : memref<?xf32, "L1">
        %85 = loom.vb.reserve %vb_l_i : memref<?xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%83, %84 : memref<?xf32, "L1">, memref<?xf32, "L1">) outs(%85 : memref<?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:31"} {
        ^bb0(%86: f32, %87: f32, %88: f32):
          %89 = arith.mulf %86, %87 : f32
          linalg.yield %89 : f32
        }
        loom.vb.commit %vb_l_i : memref<?xf32, "L1">
        %90 = arith.constant 0.000000e+00 : f32
        %91 = loom.vb.reserve %vb_sum : memref<?xf32, "L1">
        linalg.fill {loom.loc = "flash_attention.py:31"} ins(%90 : f32) outs(%91 : memref<?xf32, "L1">)
        loom.vb.commit %vb_sum : memref<?xf32, "L1">
        %92 = loom.vb.acquire %vb_mm : memref<?x?xf32, "L1">
        %93 = loom.vb.acquire %vb_sum : memref<?xf32, "L1">
        loom.vb.release %vb_sum : memref<?xf32, "L1">
        %94 = loom.vb.reserve %vb_sum : memref<?xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%92 : memref<?x?xf32, "L1">) outs(%94 : memref<?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:31"} {
        ^bb0(%95: f32, %96: f32):
          %97 = arith.addf %95, %96 : f32
          linalg.yield %97 : f32
        }
        loom.vb.commit %vb_sum : memref<?xf32, "L1">
        %98 = loom.vb.acquire %vb_l_i : memref<?xf32, "L1">
        %99 = loom.vb.acquire %vb_sum : memref<?xf32, "L1">
        loom.vb.release %vb_l_i : memref<?xf32, "L1">
        %100 = loom.vb.reserve %vb_l_i : memref<?xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%98, %99 : memref<?xf32, "L1">, memref<?xf32, "L1">) outs(%100 : memref<?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:31"} {
        ^bb0(%101: f32, %102: f32, %103: f32):
          %104 = arith.addf %101, %102 : f32
          linalg.yield %104 : f32
        }
        loom.vb.commit %vb_l_i : memref<?xf32, "L1">
        loom.vb.release %vb_sum : memref<?xf32, "L1">
        %105 = loom.vb.acquire %vb_acc : memref<?x64xf32, "L1">
        loom.vb.release %vb_acc : memref<?x64xf32, "L1">
        %106 = loom.vb.reserve %vb_acc : memref<?x64xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%105, %84 : memref<?x64xf32, "L1">, memref<?xf32, "L1">) outs(%106 : memref<?x64xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:32"} {
        ^bb0(%107: f32, %108: f32, %109: f32):
          %110 = arith.mulf %107, %108 : f32
          linalg.yield %110 : f32
        }
        loom.vb.commit %vb_acc : memref<?x64xf32, "L1">
        loom.vb.release %vb_m_i : memref<?xf32, "L1">
        %111 = loom.vb.reserve %vb_exp_bf16 : memref<?x?xbf16, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%92 : memref<?x?xf32, "L1">) outs(%111 : memref<?x?xbf16, "L1">) attrs =  {loom.loc = "flash_attention.py:32"} {
        ^bb0(%112: f32, %113: bf16):
          %114 = arith.truncf %112 : f32 to bf16
          linalg.yield %114 : bf16
        }
        loom.vb.commit %vb_exp_bf16 : memref<?x?xbf16, "L1">
        loom.vb.release %vb_mm : memref<?x?xf32, "L1">
        %115 = loom.vb.acquire %vb_v_blk : memref<?x64xbf16, "L1">
        %116 = loom.vb.acquire %vb_acc : memref<?x64xf32, "L1">
        %117 = loom.vb.acquire %vb_exp_bf16 : memref<?x?xbf16, "L1">
        loom.vb.release %vb_acc : memref<?x64xf32, "L1">
        %118 = loom.vb.reserve %vb_acc : memref<?x64xf32, "L1">
        linalg.matmul {loom.loc = "flash_attention.py:32"} ins(%117, %115 : memref<?x?xbf16, "L1">, memref<?x64xbf16, "L1">) outs(%118 : memref<?x64xf32, "L1">)
        loom.vb.commit %vb_acc : memref<?x64xf32, "L1">
        loom.vb.release %vb_v_blk : memref<?x64xbf16, "L1">
        loom.vb.release %vb_exp_bf16 : memref<?x?xbf16, "L1">
        %119 = loom.vb.reserve %vb_m_i : memref<?xf32, "L1">
        linalg.copy ins(%62 : memref<?xf32, "L1">) outs(%119 : memref<?xf32, "L1">)
        loom.vb.commit %vb_m_i : memref<?xf32, "L1">
        loom.vb.release %vb_m_new : memref<?xf32, "L1">
      } {loom.loc = "flash_attention.py:24", loom.combine = "lse", loom.carried_roles = ["max", "rescaled", "rescaled"], loom.carried = ["m_i", "l_i", "acc"]}
      loom.vb.release %vb_q_blk : memref<?x64xbf16, "L1">
      %120 = loom.vb.acquire %vb_m_i : memref<?xf32, "L1">
      loom.vb.release %vb_m_i : memref<?xf32, "L1">
      %121 = loom.vb.acquire %vb_l_i : memref<?xf32, "L1">
      %122 = loom.vb.acquire %vb_acc : memref<?x64xf32, "L1">
      %123 = loom.vb.reserve %vb_div_bf16 : memref<?x64xbf16, "L1">
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%122, %121 : memref<?x64xf32, "L1">, memref<?xf32, "L1">) outs(%123 : memref<?x64xbf16, "L1">) attrs =  {loom.loc = "flash_attention.py:34"} {
      ^bb0(%124: f32, %125: f32, %126: bf16):
        %127 = arith.divf %124, %125 : f32
        %128 = arith.truncf %127 : f32 to bf16
        linalg.yield %128 : bf16
      }
      loom.vb.commit %vb_div_bf16 : memref<?x64xbf16, "L1">
      loom.vb.release %vb_l_i : memref<?xf32, "L1">
      loom.vb.release %vb_acc : memref<?x64xf32, "L1">
      %129 = memref.subview %out[%b_idx, %h_idx, %23, 0] [1, 1, %tile_m, 64] [1, 1, 1, 1] {loom.loc = "flash_attention.py:34"} : memref<1x2x128x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
      %130 = loom.vb.acquire %vb_div_bf16 : memref<?x64xbf16, "L1">
      loom.copy %130, %129 {loom.loc = "flash_attention.py:34", src_space = "L1", dst_space = "DRAM"} : memref<?x64xbf16, "L1">, memref<?x64xbf16, strided<[64, 1], offset: ?>>
      loom.vb.release %vb_div_bf16 : memref<?x64xbf16, "L1">
      affine.yield
    }) {loom.grid = ["b", "h", "tile_m"]} : (index, index, index) -> ()
    func.return
  }
}
