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
      %vb_m_i = loom.vb.create "m_i"(%tile_m) : memref<?xf32, "L1">
      %vb_l_i = loom.vb.create "l_i"(%tile_m) : memref<?xf32, "L1">
      %vb_acc = loom.vb.create "acc"(%tile_m) : memref<?x64xf32, "L1">
      %vb_q_blk = loom.vb.create "q_blk"(%tile_m) : memref<?x64xbf16, "L1">
      %vb_k_blk = loom.vb.create "k_blk"(%tile_n) : memref<?x64xbf16, "L1">
      %vb_v_blk = loom.vb.create "v_blk"(%tile_n) : memref<?x64xbf16, "L1">
      %vb_permute = loom.vb.create "permute"(%tile_n) : memref<64x?xbf16, "L1">
      %vb_mm_init = loom.vb.create "mm_init"(%tile_m, %tile_n) : memref<?x?xf32, "L1">
      %vb_mm = loom.vb.create "mm"(%tile_m, %tile_n) : memref<?x?xf32, "L1">
      %vb_s = loom.vb.create "s"(%tile_m, %tile_n) : memref<?x?xf32, "L1">
      %vb_amax_init = loom.vb.create "amax_init"(%tile_m) : memref<?xf32, "L1">
      %vb_amax = loom.vb.create "amax"(%tile_m) : memref<?xf32, "L1">
      %vb_m_new = loom.vb.create "m_new"(%tile_m) : memref<?xf32, "L1">
      %vb_sub = loom.vb.create "sub"(%tile_m, %tile_n) : memref<?x?xf32, "L1">
      %vb_exp = loom.vb.create "exp"(%tile_m, %tile_n) : memref<?x?xf32, "L1">
      %vb_sub_1 = loom.vb.create "sub_1"(%tile_m) : memref<?xf32, "L1">
      %vb_alpha = loom.vb.create "alpha"(%tile_m) : memref<?xf32, "L1">
      %vb_mul = loom.vb.create "mul"(%tile_m) : memref<?xf32, "L1">
      %vb_sum_1_init = loom.vb.create "sum_1_init"(%tile_m) : memref<?xf32, "L1">
      %vb_sum = loom.vb.create "sum"(%tile_m) : memref<?xf32, "L1">
      %vb_mul_1 = loom.vb.create "mul_1"(%tile_m) : memref<?x64xf32, "L1">
      %vb_exp_bf16 = loom.vb.create "exp_bf16"(%tile_m, %tile_n) : memref<?x?xbf16, "L1">
      %vb_div_bf16 = loom.vb.create "div_bf16"(%tile_m) : memref<?x64xbf16, "L1">
      %4 = arith.constant 0xff800000 : f32
      %5 = loom.vb.reserve %vb_m_i : memref<?xf32, "L1">
      linalg.fill {loom.loc = "flash_attention.py:20"} ins(%4 : f32) outs(%5 : memref<?xf32, "L1">)
      loom.vb.commit %vb_m_i : memref<?xf32, "L1">
      %6 = arith.constant 0.000000e+00 : f32
      %7 = loom.vb.reserve %vb_l_i : memref<?xf32, "L1">
      linalg.fill {loom.loc = "flash_attention.py:21"} ins(%6 : f32) outs(%7 : memref<?xf32, "L1">)
      loom.vb.commit %vb_l_i : memref<?xf32, "L1">
      %8 = arith.constant 0.000000e+00 : f32
      %9 = loom.vb.reserve %vb_acc : memref<?x64xf32, "L1">
      linalg.fill {loom.loc = "flash_attention.py:22"} ins(%8 : f32) outs(%9 : memref<?x64xf32, "L1">)
      loom.vb.commit %vb_acc : memref<?x64xf32, "L1">
      %10 = arith.muli %tile_m_idx, %tile_m : index
      %11 = memref.subview %q[%b_idx, %h_idx, %10, 0] [1, 1, %tile_m, 64] [1, 1, 1, 1] {loom.loc = "flash_attention.py:23"} : memref<1x2x128x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
      %12 = loom.vb.reserve %vb_q_blk : memref<?x64xbf16, "L1">
      loom.copy %11, %12 {loom.loc = "flash_attention.py:23", src_space = "DRAM", dst_space = "L1"} : memref<?x64xbf16, strided<[64, 1], offset: ?>>, memref<?x64xbf16, "L1">
      loom.vb.commit %vb_q_blk : memref<?x64xbf16, "L1">
      %13 = arith.ceildivui %2, %tile_n : index
      %14 = arith.constant 0 : index
      %15 = loom.vb.acquire %vb_q_blk : memref<?x64xbf16, "L1">
      scf.for %tile_n_idx = %14 to %13 step %0 {
        %16 = arith.muli %tile_n_idx, %tile_n : index
        %17 = memref.subview %k[%b_idx, %h_idx, %16, 0] [1, 1, %tile_n, 64] [1, 1, 1, 1] {loom.loc = "flash_attention.py:25"} : memref<1x2x128x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
        %18 = loom.vb.reserve %vb_k_blk : memref<?x64xbf16, "L1">
        loom.copy %17, %18 {loom.loc = "flash_attention.py:25", src_space = "DRAM", dst_space = "L1"} : memref<?x64xbf16, strided<[64, 1], offset: ?>>, memref<?x64xbf16, "L1">
        loom.vb.commit %vb_k_blk : memref<?x64xbf16, "L1">
        %19 = memref.subview %v[%b_idx, %h_idx, %16, 0] [1, 1, %tile_n, 64] [1, 1, 1, 1] {loom.loc = "flash_attention.py:26"} : memref<1x2x128x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
        %20 = loom.vb.reserve %vb_v_blk : memref<?x64xbf16, "L1">
        loom.copy %19, %20 {loom.loc = "flash_attention.py:26", src_space = "DRAM", dst_space = "L1"} : memref<?x64xbf16, strided<[64, 1], offset: ?>>, memref<?x64xbf16, "L1">
        loom.vb.commit %vb_v_blk : memref<?x64xbf16, "L1">
        %21 = loom.vb.acquire %vb_k_blk : memref<?x64xbf16, "L1">
        %22 = loom.vb.reserve %vb_permute : memref<64x?xbf16, "L1">
        linalg.transpose ins(%21:memref<?x64xbf16, "L1">) outs(%22:memref<64x?xbf16, "L1">) permutation = [1, 0]
        loom.vb.commit %vb_permute : memref<64x?xbf16, "L1">
        loom.vb.release %vb_k_blk : memref<?x64xbf16, "L1">
        %23 = arith.constant 0.000000e+00 : f32
        %24 = loom.vb.reserve %vb_mm_init : memref<?x?xf32, "L1">
        linalg.fill {loom.loc = "flash_attention.py:27"} ins(%23 : f32) outs(%24 : memref<?x?xf32, "L1">)
        loom.vb.commit %vb_mm_init : memref<?x?xf32, "L1">
        %25 = loom.vb.acquire %vb_permute : memref<64x?xbf16, "L1">
        %26 = loom.vb.acquire %vb_mm_init : memref<?x?xf32, "L1">
        %27 = loom.vb.reserve %vb_mm : memref<?x?xf32, "L1">
        linalg.copy ins(%26 : memref<?x?xf32, "L1">) outs(%27 : memref<?x?xf32, "L1">)
        linalg.matmul {loom.loc = "flash_attention.py:27"} ins(%15, %25 : memref<?x64xbf16, "L1">, memref<64x?xbf16, "L1">) outs(%27 : memref<?x?xf32, "L1">)
        loom.vb.commit %vb_mm : memref<?x?xf32, "L1">
        loom.vb.release %vb_permute : memref<64x?xbf16, "L1">
        loom.vb.release %vb_mm_init : memref<?x?xf32, "L1">
        %28 = arith.constant 1.250000e-01 : f32
        %29 = loom.vb.acquire %vb_mm : memref<?x?xf32, "L1">
        %30 = loom.vb.reserve %vb_s : memref<?x?xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%29 : memref<?x?xf32, "L1">) outs(%30 : memref<?x?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:27"} {
        ^bb0(%31: f32, %32: f32):
          %33 = arith.mulf %31, %28 : f32
          linalg.yield %33 : f32
        }
        loom.vb.commit %vb_s : memref<?x?xf32, "L1">
        loom.vb.release %vb_mm : memref<?x?xf32, "L1">
        %34 = arith.constant 0xff800000 : f32
        %35 = loom.vb.reserve %vb_amax_init : memref<?xf32, "L1">
        linalg.fill {loom.loc = "flash_attention.py:28"} ins(%34 : f32) outs(%35 : memref<?xf32, "L1">)
        loom.vb.commit %vb_amax_init : memref<?xf32, "L1">
        %36 = loom.vb.acquire %vb_s : memref<?x?xf32, "L1">
        %37 = loom.vb.acquire %vb_amax_init : memref<?xf32, "L1">
        %38 = loom.vb.reserve %vb_amax : memref<?xf32, "L1">
        linalg.copy ins(%37 : memref<?xf32, "L1">) outs(%38 : memref<?xf32, "L1">)
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%36 : memref<?x?xf32, "L1">) outs(%38 : memref<?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:28"} {
        ^bb0(%39: f32, %40: f32):
          %41 = arith.maximumf %39, %40 : f32
          linalg.yield %41 : f32
        }
        loom.vb.commit %vb_amax : memref<?xf32, "L1">
        loom.vb.release %vb_amax_init : memref<?xf32, "L1">
        %42 = loom.vb.acquire %vb_m_i : memref<?xf32, "L1">
        %43 = loom.vb.acquire %vb_amax : memref<?xf32, "L1">
        %44 = loom.vb.reserve %vb_m_new : memref<?xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%42, %43 : memref<?xf32, "L1">, memref<?xf32, "L1">) outs(%44 : memref<?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:28"} {
        ^bb0(%45: f32, %46: f32, %47: f32):
          %48 = arith.maximumf %45, %46 : f32
          linalg.yield %48 : f32
        }
        loom.vb.commit %vb_m_new : memref<?xf32, "L1">
        loom.vb.release %vb_amax : memref<?xf32, "L1">
        %49 = loom.vb.acquire %vb_m_new : memref<?xf32, "L1">
        %50 = loom.vb.reserve %vb_sub : memref<?x?xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%36, %49 : memref<?x?xf32, "L1">, memref<?xf32, "L1">) outs(%50 : memref<?x?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:29"} {
        ^bb0(%51: f32, %52: f32, %53: f32):
          %54 = arith.subf %51, %52 : f32
          linalg.yield %54 : f32
        }
        loom.vb.commit %vb_sub : memref<?x?xf32, "L1">
        loom.vb.release %vb_s : memref<?x?xf32, "L1">
        %55 = loom.vb.acquire %vb_sub : memref<?x?xf32, "L1">
        %56 = loom.vb.reserve %vb_exp : memref<?x?xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%55 : memref<?x?xf32, "L1">) outs(%56 : memref<?x?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:29"} {
        ^bb0(%57: f32, %58: f32):
          %59 = math.exp %57 : f32
          linalg.yield %59 : f32
        }
        loom.vb.commit %vb_exp : memref<?x?xf32, "L1">
        loom.vb.release %vb_sub : memref<?x?xf32, "L1">
        %60 = loom.vb.reserve %vb_sub_1 : memref<?xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%42, %49 : memref<?xf32, "L1">, memref<?xf32, "L1">) outs(%60 : memref<?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:30"} {
        ^bb0(%61: f32, %62: f32, %63: f32):
          %64 = arith.subf %61, %62 : f32
          linalg.yield %64 : f32
        }
        loom.vb.commit %vb_sub_1 : memref<?xf32, "L1">
        loom.vb.release %vb_m_i : memref<?xf32, "L1">
        %65 = loom.vb.acquire %vb_sub_1 : memref<?xf32, "L1">
        %66 = loom.vb.reserve %vb_alpha : memref<?xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%65 : memref<?xf32, "L1">) outs(%66 : memref<?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:30"} {
        ^bb0(%67: f32, %68: f32):
          %69 = math.exp %67 : f32
          linalg.yield %69 : f32
        }
        loom.vb.commit %vb_alpha : memref<?xf32, "L1">
        loom.vb.release %vb_sub_1 : memref<?xf32, "L1">
        %70 = loom.vb.acquire %vb_l_i : memref<?xf32, "L1">
        %71 = loom.vb.acquire %vb_alpha : memref<?xf32, "L1">
        %72 = loom.vb.reserve %vb_mul : memref<?xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%70, %71 : memref<?xf32, "L1">, memref<?xf32, "L1">) outs(%72 : memref<?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:31"} {
        ^bb0(%73: f32, %74: f32, %75: f32):
          %76 = arith.mulf %73, %74 : f32
          linalg.yield %76 : f32
        }
        loom.vb.commit %vb_mul : memref<?xf32, "L1">
        loom.vb.release %vb_l_i : memref<?xf32, "L1">
        %77 = arith.constant 0.000000e+00 : f32
        %78 = loom.vb.reserve %vb_sum_1_init : memref<?xf32, "L1">
        linalg.fill {loom.loc = "flash_attention.py:31"} ins(%77 : f32) outs(%78 : memref<?xf32, "L1">)
        loom.vb.commit %vb_sum_1_init : memref<?xf32, "L1">
        %79 = loom.vb.acquire %vb_exp : memref<?x?xf32, "L1">
        %80 = loom.vb.acquire %vb_sum_1_init : memref<?xf32, "L1">
        %81 = loom.vb.reserve %vb_sum : memref<?xf32, "L1">
        linalg.copy ins(%80 : memref<?xf32, "L1">) outs(%81 : memref<?xf32, "L1">)
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%79 : memref<?x?xf32, "L1">) outs(%81 : memref<?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:31"} {
        ^bb0(%82: f32, %83: f32):
          %84 = arith.addf %82, %83 : f32
          linalg.yield %84 : f32
        }
        loom.vb.commit %vb_sum : memref<?xf32, "L1">
        loom.vb.release %vb_sum_1_init : memref<?xf32, "L1">
        %85 = loom.vb.acquire %vb_mul : memref<?xf32, "L1">
        %86 = loom.vb.acquire %vb_sum : memref<?xf32, "L1">
        %87 = loom.vb.reserve %vb_l_i : memref<?xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%85, %86 : memref<?xf32, "L1">, memref<?xf32, "L1">) outs(%87 : memref<?xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:31"} {
        ^bb0(%88: f32, %89: f32, %90: f32):
          %91 = arith.addf %88, %89 : f32
          linalg.yield %91 : f32
        }
        loom.vb.commit %vb_l_i : memref<?xf32, "L1">
        loom.vb.release %vb_mul : memref<?xf32, "L1">
        loom.vb.release %vb_sum : memref<?xf32, "L1">
        %92 = loom.vb.acquire %vb_acc : memref<?x64xf32, "L1">
        %93 = loom.vb.reserve %vb_mul_1 : memref<?x64xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%92, %71 : memref<?x64xf32, "L1">, memref<?xf32, "L1">) outs(%93 : memref<?x64xf32, "L1">) attrs =  {loom.loc = "flash_attention.py:32"} {
        ^bb0(%94: f32, %95: f32, %96: f32):
          %97 = arith.mulf %94, %95 : f32
          linalg.yield %97 : f32
        }
        loom.vb.commit %vb_mul_1 : memref<?x64xf32, "L1">
        loom.vb.release %vb_acc : memref<?x64xf32, "L1">
        loom.vb.release %vb_alpha : memref<?xf32, "L1">
        %98 = loom.vb.reserve %vb_exp_bf16 : memref<?x?xbf16, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%79 : memref<?x?xf32, "L1">) outs(%98 : memref<?x?xbf16, "L1">) attrs =  {loom.loc = "flash_attention.py:32"} {
        ^bb0(%99: f32, %100: bf16):
          %101 = arith.truncf %99 : f32 to bf16
          linalg.yield %101 : bf16
        }
        loom.vb.commit %vb_exp_bf16 : memref<?x?xbf16, "L1">
        loom.vb.release %vb_exp : memref<?x?xf32, "L1">
        %102 = loom.vb.acquire %vb_v_blk : memref<?x64xbf16, "L1">
        %103 = loom.vb.acquire %vb_mul_1 : memref<?x64xf32, "L1">
        %104 = loom.vb.acquire %vb_exp_bf16 : memref<?x?xbf16, "L1">
        %105 = loom.vb.reserve %vb_acc : memref<?x64xf32, "L1">
        linalg.copy ins(%103 : memref<?x64xf32, "L1">) outs(%105 : memref<?x64xf32, "L1">)
        linalg.matmul {loom.loc = "flash_attention.py:32"} ins(%104, %102 : memref<?x?xbf16, "L1">, memref<?x64xbf16, "L1">) outs(%105 : memref<?x64xf32, "L1">)
        loom.vb.commit %vb_acc : memref<?x64xf32, "L1">
        loom.vb.release %vb_v_blk : memref<?x64xbf16, "L1">
        loom.vb.release %vb_mul_1 : memref<?x64xf32, "L1">
        loom.vb.release %vb_exp_bf16 : memref<?x?xbf16, "L1">
        %106 = loom.vb.reserve %vb_m_i : memref<?xf32, "L1">
        linalg.copy ins(%49 : memref<?xf32, "L1">) outs(%106 : memref<?xf32, "L1">)
        loom.vb.commit %vb_m_i : memref<?xf32, "L1">
        loom.vb.release %vb_m_new : memref<?xf32, "L1">
      } {loom.loc = "flash_attention.py:24", loom.combine = "lse", loom.carried_roles = ["max", "rescaled", "rescaled"], loom.carried = ["m_i", "l_i", "acc"]}
      loom.vb.release %vb_q_blk : memref<?x64xbf16, "L1">
      %107 = loom.vb.acquire %vb_m_i : memref<?xf32, "L1">
      loom.vb.release %vb_m_i : memref<?xf32, "L1">
      %108 = loom.vb.acquire %vb_l_i : memref<?xf32, "L1">
      %109 = loom.vb.acquire %vb_acc : memref<?x64xf32, "L1">
      %110 = loom.vb.reserve %vb_div_bf16 : memref<?x64xbf16, "L1">
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%109, %108 : memref<?x64xf32, "L1">, memref<?xf32, "L1">) outs(%110 : memref<?x64xbf16, "L1">) attrs =  {loom.loc = "flash_attention.py:34"} {
      ^bb0(%111: f32, %112: f32, %113: bf16):
        %114 = arith.divf %111, %112 : f32
        %115 = arith.truncf %114 : f32 to bf16
        linalg.yield %115 : bf16
      }
      loom.vb.commit %vb_div_bf16 : memref<?x64xbf16, "L1">
      loom.vb.release %vb_l_i : memref<?xf32, "L1">
      loom.vb.release %vb_acc : memref<?x64xf32, "L1">
      %116 = memref.subview %out[%b_idx, %h_idx, %10, 0] [1, 1, %tile_m, 64] [1, 1, 1, 1] {loom.loc = "flash_attention.py:34"} : memref<1x2x128x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
      %117 = loom.vb.acquire %vb_div_bf16 : memref<?x64xbf16, "L1">
      loom.copy %117, %116 {loom.loc = "flash_attention.py:34", src_space = "L1", dst_space = "DRAM"} : memref<?x64xbf16, "L1">, memref<?x64xbf16, strided<[64, 1], offset: ?>>
      loom.vb.release %vb_div_bf16 : memref<?x64xbf16, "L1">
      affine.yield
    }) {loom.grid = ["b", "h", "tile_m"]} : (index, index, index) -> ()
    func.return
  }
}
