builtin.module {
  func.func @flash_decode(%q: memref<2x2x1x64xbf16>, %k: memref<2x2x256x64xbf16>, %v: memref<2x2x256x64xbf16>, %out: memref<2x2x1x64xbf16>) attributes {loom.source = "examples/flash_decode.py", loom.outputs = ["out"]} {
    %0 = arith.constant 1 : index
    %tile_n = loom.sym @tile_n {upper_bound = 256 : i64, reduction, masked} : index
    %1 = arith.constant 2 : index
    "affine.parallel"(%1, %1) <{reductions = [], lowerBoundsMap = affine_map<() -> (0, 0)>, lowerBoundsGroups = dense<1> : vector<2xi32>, upperBoundsMap = affine_map<()[s0, s1] -> (s0, s1)>, upperBoundsGroups = dense<1> : vector<2xi32>, steps = [1 : i64, 1 : i64]}> ({
    ^bb0(%b_idx: index, %h_idx: index):
      %vb_m_i = loom.vb.create "m_i" : memref<1xf32, "L1">
      %vb_l_i = loom.vb.create "l_i" : memref<1xf32, "L1">
      %vb_acc = loom.vb.create "acc" : memref<1x64xf32, "L1">
      %vb_q_blk = loom.vb.create "q_blk" : memref<1x64xbf16, "L1">
      %vb_k_blk = loom.vb.create "k_blk"(%tile_n) : memref<?x64xbf16, "L1">
      %vb_v_blk = loom.vb.create "v_blk"(%tile_n) : memref<?x64xbf16, "L1">
      %vb_permute = loom.vb.create "permute"(%tile_n) : memref<64x?xbf16, "L1">
      %vb_mm_init = loom.vb.create "mm_init"(%tile_n) : memref<1x?xf32, "L1">
      %vb_mm = loom.vb.create "mm"(%tile_n) : memref<1x?xf32, "L1">
      %vb_s = loom.vb.create "s"(%tile_n) : memref<1x?xf32, "L1">
      %vb_amax_init = loom.vb.create "amax_init" : memref<1xf32, "L1">
      %vb_amax = loom.vb.create "amax" : memref<1xf32, "L1">
      %vb_m_new = loom.vb.create "m_new" : memref<1xf32, "L1">
      %vb_sub = loom.vb.create "sub"(%tile_n) : memref<1x?xf32, "L1">
      %vb_exp = loom.vb.create "exp"(%tile_n) : memref<1x?xf32, "L1">
      %vb_sub_1 = loom.vb.create "sub_1" : memref<1xf32, "L1">
      %vb_alpha = loom.vb.create "alpha" : memref<1xf32, "L1">
      %vb_mul = loom.vb.create "mul" : memref<1xf32, "L1">
      %vb_sum_1_init = loom.vb.create "sum_1_init" : memref<1xf32, "L1">
      %vb_sum = loom.vb.create "sum" : memref<1xf32, "L1">
      %vb_mul_1 = loom.vb.create "mul_1" : memref<1x64xf32, "L1">
      %vb_exp_bf16 = loom.vb.create "exp_bf16"(%tile_n) : memref<1x?xbf16, "L1">
      %vb_div_bf16 = loom.vb.create "div_bf16" : memref<1x64xbf16, "L1">
      %2 = arith.constant 0xff800000 : f32
      %3 = loom.vb.reserve %vb_m_i : memref<1xf32, "L1">
      linalg.fill {loom.loc = "flash_decode.py:26"} ins(%2 : f32) outs(%3 : memref<1xf32, "L1">)
      loom.vb.commit %vb_m_i : memref<1xf32, "L1">
      %4 = arith.constant 0.000000e+00 : f32
      %5 = loom.vb.reserve %vb_l_i : memref<1xf32, "L1">
      linalg.fill {loom.loc = "flash_decode.py:27"} ins(%4 : f32) outs(%5 : memref<1xf32, "L1">)
      loom.vb.commit %vb_l_i : memref<1xf32, "L1">
      %6 = arith.constant 0.000000e+00 : f32
      %7 = loom.vb.reserve %vb_acc : memref<1x64xf32, "L1">
      linalg.fill {loom.loc = "flash_decode.py:28"} ins(%6 : f32) outs(%7 : memref<1x64xf32, "L1">)
      loom.vb.commit %vb_acc : memref<1x64xf32, "L1">
      %8 = memref.subview %q[%b_idx, %h_idx, 0, 0] [1, 1, 1, 64] [1, 1, 1, 1] {loom.loc = "flash_decode.py:29"} : memref<2x2x1x64xbf16> to memref<1x64xbf16, strided<[64, 1], offset: ?>>
      %9 = loom.vb.reserve %vb_q_blk : memref<1x64xbf16, "L1">
      loom.copy %8, %9 {loom.loc = "flash_decode.py:29", src_space = "DRAM", dst_space = "L1"} : memref<1x64xbf16, strided<[64, 1], offset: ?>>, memref<1x64xbf16, "L1">
      loom.vb.commit %vb_q_blk : memref<1x64xbf16, "L1">
      %10 = arith.constant 256 : index
      %11 = arith.ceildivui %10, %tile_n : index
      %12 = arith.constant 0 : index
      %13 = loom.vb.acquire %vb_q_blk : memref<1x64xbf16, "L1">
      scf.for %tile_n_idx = %12 to %11 step %0 {
        %14 = arith.muli %tile_n_idx, %tile_n : index
        %15 = memref.subview %k[%b_idx, %h_idx, %14, 0] [1, 1, %tile_n, 64] [1, 1, 1, 1] {loom.loc = "flash_decode.py:31"} : memref<2x2x256x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
        %16 = loom.vb.reserve %vb_k_blk : memref<?x64xbf16, "L1">
        loom.copy %15, %16 {loom.loc = "flash_decode.py:31", src_space = "DRAM", dst_space = "L1"} : memref<?x64xbf16, strided<[64, 1], offset: ?>>, memref<?x64xbf16, "L1">
        loom.vb.commit %vb_k_blk : memref<?x64xbf16, "L1">
        %17 = memref.subview %v[%b_idx, %h_idx, %14, 0] [1, 1, %tile_n, 64] [1, 1, 1, 1] {loom.loc = "flash_decode.py:32"} : memref<2x2x256x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
        %18 = loom.vb.reserve %vb_v_blk : memref<?x64xbf16, "L1">
        loom.copy %17, %18 {loom.loc = "flash_decode.py:32", src_space = "DRAM", dst_space = "L1"} : memref<?x64xbf16, strided<[64, 1], offset: ?>>, memref<?x64xbf16, "L1">
        loom.vb.commit %vb_v_blk : memref<?x64xbf16, "L1">
        %19 = loom.vb.acquire %vb_k_blk : memref<?x64xbf16, "L1">
        %20 = loom.vb.reserve %vb_permute : memref<64x?xbf16, "L1">
        linalg.transpose ins(%19:memref<?x64xbf16, "L1">) outs(%20:memref<64x?xbf16, "L1">) permutation = [1, 0]
        loom.vb.commit %vb_permute : memref<64x?xbf16, "L1">
        loom.vb.release %vb_k_blk : memref<?x64xbf16, "L1">
        %21 = arith.constant 0.000000e+00 : f32
        %22 = loom.vb.reserve %vb_mm_init : memref<1x?xf32, "L1">
        linalg.fill {loom.loc = "flash_decode.py:33"} ins(%21 : f32) outs(%22 : memref<1x?xf32, "L1">)
        loom.vb.commit %vb_mm_init : memref<1x?xf32, "L1">
        %23 = loom.vb.acquire %vb_permute : memref<64x?xbf16, "L1">
        %24 = loom.vb.acquire %vb_mm_init : memref<1x?xf32, "L1">
        %25 = loom.vb.reserve %vb_mm : memref<1x?xf32, "L1">
        linalg.copy ins(%24 : memref<1x?xf32, "L1">) outs(%25 : memref<1x?xf32, "L1">)
        linalg.matmul {loom.loc = "flash_decode.py:33"} ins(%13, %23 : memref<1x64xbf16, "L1">, memref<64x?xbf16, "L1">) outs(%25 : memref<1x?xf32, "L1">)
        loom.vb.commit %vb_mm : memref<1x?xf32, "L1">
        loom.vb.release %vb_permute : memref<64x?xbf16, "L1">
        loom.vb.release %vb_mm_init : memref<1x?xf32, "L1">
        %26 = arith.constant 1.250000e-01 : f32
        %27 = loom.vb.acquire %vb_mm : memref<1x?xf32, "L1">
        %28 = loom.vb.reserve %vb_s : memref<1x?xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%27 : memref<1x?xf32, "L1">) outs(%28 : memref<1x?xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:33"} {
        ^bb0(%29: f32, %30: f32):
          %31 = arith.mulf %29, %26 : f32
          linalg.yield %31 : f32
        }
        loom.vb.commit %vb_s : memref<1x?xf32, "L1">
        loom.vb.release %vb_mm : memref<1x?xf32, "L1">
        %32 = arith.constant 0xff800000 : f32
        %33 = loom.vb.reserve %vb_amax_init : memref<1xf32, "L1">
        linalg.fill {loom.loc = "flash_decode.py:34"} ins(%32 : f32) outs(%33 : memref<1xf32, "L1">)
        loom.vb.commit %vb_amax_init : memref<1xf32, "L1">
        %34 = loom.vb.acquire %vb_s : memref<1x?xf32, "L1">
        %35 = loom.vb.acquire %vb_amax_init : memref<1xf32, "L1">
        %36 = loom.vb.reserve %vb_amax : memref<1xf32, "L1">
        linalg.copy ins(%35 : memref<1xf32, "L1">) outs(%36 : memref<1xf32, "L1">)
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%34 : memref<1x?xf32, "L1">) outs(%36 : memref<1xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:34"} {
        ^bb0(%37: f32, %38: f32):
          %39 = arith.maximumf %37, %38 : f32
          linalg.yield %39 : f32
        }
        loom.vb.commit %vb_amax : memref<1xf32, "L1">
        loom.vb.release %vb_amax_init : memref<1xf32, "L1">
        %40 = loom.vb.acquire %vb_m_i : memref<1xf32, "L1">
        %41 = loom.vb.acquire %vb_amax : memref<1xf32, "L1">
        %42 = loom.vb.reserve %vb_m_new : memref<1xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%40, %41 : memref<1xf32, "L1">, memref<1xf32, "L1">) outs(%42 : memref<1xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:34"} {
        ^bb0(%43: f32, %44: f32, %45: f32):
          %46 = arith.maximumf %43, %44 : f32
          linalg.yield %46 : f32
        }
        loom.vb.commit %vb_m_new : memref<1xf32, "L1">
        loom.vb.release %vb_amax : memref<1xf32, "L1">
        %47 = loom.vb.acquire %vb_m_new : memref<1xf32, "L1">
        %48 = loom.vb.reserve %vb_sub : memref<1x?xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%34, %47 : memref<1x?xf32, "L1">, memref<1xf32, "L1">) outs(%48 : memref<1x?xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:35"} {
        ^bb0(%49: f32, %50: f32, %51: f32):
          %52 = arith.subf %49, %50 : f32
          linalg.yield %52 : f32
        }
        loom.vb.commit %vb_sub : memref<1x?xf32, "L1">
        loom.vb.release %vb_s : memref<1x?xf32, "L1">
        %53 = loom.vb.acquire %vb_sub : memref<1x?xf32, "L1">
        %54 = loom.vb.reserve %vb_exp : memref<1x?xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%53 : memref<1x?xf32, "L1">) outs(%54 : memref<1x?xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:35"} {
        ^bb0(%55: f32, %56: f32):
          %57 = math.exp %55 : f32
          linalg.yield %57 : f32
        }
        loom.vb.commit %vb_exp : memref<1x?xf32, "L1">
        loom.vb.release %vb_sub : memref<1x?xf32, "L1">
        %58 = loom.vb.reserve %vb_sub_1 : memref<1xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%40, %47 : memref<1xf32, "L1">, memref<1xf32, "L1">) outs(%58 : memref<1xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:36"} {
        ^bb0(%59: f32, %60: f32, %61: f32):
          %62 = arith.subf %59, %60 : f32
          linalg.yield %62 : f32
        }
        loom.vb.commit %vb_sub_1 : memref<1xf32, "L1">
        loom.vb.release %vb_m_i : memref<1xf32, "L1">
        %63 = loom.vb.acquire %vb_sub_1 : memref<1xf32, "L1">
        %64 = loom.vb.reserve %vb_alpha : memref<1xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%63 : memref<1xf32, "L1">) outs(%64 : memref<1xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:36"} {
        ^bb0(%65: f32, %66: f32):
          %67 = math.exp %65 : f32
          linalg.yield %67 : f32
        }
        loom.vb.commit %vb_alpha : memref<1xf32, "L1">
        loom.vb.release %vb_sub_1 : memref<1xf32, "L1">
        %68 = loom.vb.acquire %vb_l_i : memref<1xf32, "L1">
        %69 = loom.vb.acquire %vb_alpha : memref<1xf32, "L1">
        %70 = loom.vb.reserve %vb_mul : memref<1xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%68, %69 : memref<1xf32, "L1">, memref<1xf32, "L1">) outs(%70 : memref<1xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:37"} {
        ^bb0(%71: f32, %72: f32, %73: f32):
          %74 = arith.mulf %71, %72 : f32
          linalg.yield %74 : f32
        }
        loom.vb.commit %vb_mul : memref<1xf32, "L1">
        loom.vb.release %vb_l_i : memref<1xf32, "L1">
        %75 = arith.constant 0.000000e+00 : f32
        %76 = loom.vb.reserve %vb_sum_1_init : memref<1xf32, "L1">
        linalg.fill {loom.loc = "flash_decode.py:37"} ins(%75 : f32) outs(%76 : memref<1xf32, "L1">)
        loom.vb.commit %vb_sum_1_init : memref<1xf32, "L1">
        %77 = loom.vb.acquire %vb_exp : memref<1x?xf32, "L1">
        %78 = loom.vb.acquire %vb_sum_1_init : memref<1xf32, "L1">
        %79 = loom.vb.reserve %vb_sum : memref<1xf32, "L1">
        linalg.copy ins(%78 : memref<1xf32, "L1">) outs(%79 : memref<1xf32, "L1">)
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%77 : memref<1x?xf32, "L1">) outs(%79 : memref<1xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:37"} {
        ^bb0(%80: f32, %81: f32):
          %82 = arith.addf %80, %81 : f32
          linalg.yield %82 : f32
        }
        loom.vb.commit %vb_sum : memref<1xf32, "L1">
        loom.vb.release %vb_sum_1_init : memref<1xf32, "L1">
        %83 = loom.vb.acquire %vb_mul : memref<1xf32, "L1">
        %84 = loom.vb.acquire %vb_sum : memref<1xf32, "L1">
        %85 = loom.vb.reserve %vb_l_i : memref<1xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%83, %84 : memref<1xf32, "L1">, memref<1xf32, "L1">) outs(%85 : memref<1xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:37"} {
        ^bb0(%86: f32, %87: f32, %88: f32):
          %89 = arith.addf %86, %87 : f32
          linalg.yield %89 : f32
        }
        loom.vb.commit %vb_l_i : memref<1xf32, "L1">
        loom.vb.release %vb_mul : memref<1xf32, "L1">
        loom.vb.release %vb_sum : memref<1xf32, "L1">
        %90 = loom.vb.acquire %vb_acc : memref<1x64xf32, "L1">
        %91 = loom.vb.reserve %vb_mul_1 : memref<1x64xf32, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%90, %69 : memref<1x64xf32, "L1">, memref<1xf32, "L1">) outs(%91 : memref<1x64xf32, "L1">) attrs =  {loom.loc = "flash_decode.py:38"} {
        ^bb0(%92: f32, %93: f32, %94: f32):
          %95 = arith.mulf %92, %93 : f32
          linalg.yield %95 : f32
        }
        loom.vb.commit %vb_mul_1 : memref<1x64xf32, "L1">
        loom.vb.release %vb_acc : memref<1x64xf32, "L1">
        loom.vb.release %vb_alpha : memref<1xf32, "L1">
        %96 = loom.vb.reserve %vb_exp_bf16 : memref<1x?xbf16, "L1">
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%77 : memref<1x?xf32, "L1">) outs(%96 : memref<1x?xbf16, "L1">) attrs =  {loom.loc = "flash_decode.py:38"} {
        ^bb0(%97: f32, %98: bf16):
          %99 = arith.truncf %97 : f32 to bf16
          linalg.yield %99 : bf16
        }
        loom.vb.commit %vb_exp_bf16 : memref<1x?xbf16, "L1">
        loom.vb.release %vb_exp : memref<1x?xf32, "L1">
        %100 = loom.vb.acquire %vb_v_blk : memref<?x64xbf16, "L1">
        %101 = loom.vb.acquire %vb_mul_1 : memref<1x64xf32, "L1">
        %102 = loom.vb.acquire %vb_exp_bf16 : memref<1x?xbf16, "L1">
        %103 = loom.vb.reserve %vb_acc : memref<1x64xf32, "L1">
        linalg.copy ins(%101 : memref<1x64xf32, "L1">) outs(%103 : memref<1x64xf32, "L1">)
        linalg.matmul {loom.loc = "flash_decode.py:38"} ins(%102, %100 : memref<1x?xbf16, "L1">, memref<?x64xbf16, "L1">) outs(%103 : memref<1x64xf32, "L1">)
        loom.vb.commit %vb_acc : memref<1x64xf32, "L1">
        loom.vb.release %vb_v_blk : memref<?x64xbf16, "L1">
        loom.vb.release %vb_mul_1 : memref<1x64xf32, "L1">
        loom.vb.release %vb_exp_bf16 : memref<1x?xbf16, "L1">
        %104 = loom.vb.reserve %vb_m_i : memref<1xf32, "L1">
        linalg.copy ins(%47 : memref<1xf32, "L1">) outs(%104 : memref<1xf32, "L1">)
        loom.vb.commit %vb_m_i : memref<1xf32, "L1">
        loom.vb.release %vb_m_new : memref<1xf32, "L1">
      } {loom.loc = "flash_decode.py:30", loom.combine = "lse", loom.carried_roles = ["max", "rescaled", "rescaled"], loom.carried = ["m_i", "l_i", "acc"]}
      loom.vb.release %vb_q_blk : memref<1x64xbf16, "L1">
      %105 = loom.vb.acquire %vb_m_i : memref<1xf32, "L1">
      loom.vb.release %vb_m_i : memref<1xf32, "L1">
      %106 = loom.vb.acquire %vb_l_i : memref<1xf32, "L1">
      %107 = loom.vb.acquire %vb_acc : memref<1x64xf32, "L1">
      %108 = loom.vb.reserve %vb_div_bf16 : memref<1x64xbf16, "L1">
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%107, %106 : memref<1x64xf32, "L1">, memref<1xf32, "L1">) outs(%108 : memref<1x64xbf16, "L1">) attrs =  {loom.loc = "flash_decode.py:40"} {
      ^bb0(%109: f32, %110: f32, %111: bf16):
        %112 = arith.divf %109, %110 : f32
        %113 = arith.truncf %112 : f32 to bf16
        linalg.yield %113 : bf16
      }
      loom.vb.commit %vb_div_bf16 : memref<1x64xbf16, "L1">
      loom.vb.release %vb_l_i : memref<1xf32, "L1">
      loom.vb.release %vb_acc : memref<1x64xf32, "L1">
      %114 = memref.subview %out[%b_idx, %h_idx, 0, 0] [1, 1, 1, 64] [1, 1, 1, 1] {loom.loc = "flash_decode.py:40"} : memref<2x2x1x64xbf16> to memref<1x64xbf16, strided<[64, 1], offset: ?>>
      %115 = loom.vb.acquire %vb_div_bf16 : memref<1x64xbf16, "L1">
      loom.copy %115, %114 {loom.loc = "flash_decode.py:40", src_space = "L1", dst_space = "DRAM"} : memref<1x64xbf16, "L1">, memref<1x64xbf16, strided<[64, 1], offset: ?>>
      loom.vb.release %vb_div_bf16 : memref<1x64xbf16, "L1">
      affine.yield
    }) {loom.grid = ["b", "h"]} : (index, index) -> ()
    func.return
  }
}
