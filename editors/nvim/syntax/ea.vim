" Vim syntax file
" Language:   Eä (explicit-SIMD kernel language), files *.ea
" Reference:  spec LANGUAGE.md §1 (lexical structure), §5.3 (vector types),
"             compiler/intrinsics (built-in function names)

if exists('b:current_syntax')
  finish
endif

let s:cpo_save = &cpo
set cpo&vim

syn case match

" ---- reserved words (LANGUAGE.md §1.4) ----
syn keyword eaKeyword       let mut const struct splat restrict unroll in
syn keyword eaStorage       export
syn keyword eaStorage       func nextgroup=eaFuncName skipwhite
syn keyword eaConditional   if else
syn keyword eaRepeat        while foreach for
syn keyword eaStatement     return
syn keyword eaBoolean       true false

" ---- types: scalar words, u32/u64 (types in type position), vectors (§5.3) ----
syn keyword eaScalarType    i8 u8 i16 u16 i32 i64 f16 f32 f64 bool u32 u64
syn keyword eaVectorType f32x4 i32x4 i8x16 u8x16 i16x8 f64x2 u16x8 u32x4 u64x2 f32x8 i32x8 i8x32 i16x16 u8x32
syn keyword eaVectorType f64x4 u16x16 u64x4 f32x16 i32x16 i8x64 u8x64 i16x32 u64x8 u16x32 i8x8 u8x8 i16x4 u16x4
syn keyword eaVectorType i32x2 i8x4 f16x4 f16x8

" ---- built-in functions (intrinsics; `splat` is a keyword above) ----
syn keyword eaIntrinsic align_offset abs abs_diff abs_diff_i16x8 abs_diff_i32x4 abs_diff_i8x16 abs_diff_u16x8 abs_diff_u32x4
syn keyword eaIntrinsic abs_diff_u8x16 addp_i16 addp_i32 bcast_even_pairs_i32x16 bcast_even_pairs_i32x8
syn keyword eaIntrinsic bcast_odd_pairs_i32x16 bcast_odd_pairs_i32x8 bitcast_i32x4 bitcast_i32x8 bitcast_i8x16
syn keyword eaIntrinsic bitcast_i8x32 blend_i32 bslli_i8x16 bslli_i8x32 bsrli_i8x16 bsrli_i8x32 concat_f32x8
syn keyword eaIntrinsic concat_i32x8 concat_i8x16 concat_i8x32 concat_u8x16 concat_u8x32 cos_approx_f32 cvt_f16_f32
syn keyword eaIntrinsic cvt_f32_f16 dpbusd dpwssd exp exp_poly_f32 f32x4_from_scalars f32x8_from_scalars fence_nt
syn keyword eaIntrinsic fma gather
syn keyword eaIntrinsic hadd_i16 hi128_i16x16 hi128_i8x32 hi128_u16x16 hi128_u8x32 hi256_f32x16 hi256_i16x32
syn keyword eaIntrinsic hi256_i32x16 hi256_i8x64 hi256_u16x32 hi256_u8x64 lo128_i16x16 lo128_i8x32 lo128_u16x16
syn keyword eaIntrinsic lo128_u8x32 lo256_f32x16 lo256_i16x32 lo256_i32x16 lo256_i8x64 lo256_u16x32 lo256_u8x64 load
syn keyword eaIntrinsic load_masked log_approx_f32 madd_i16 maddubs_i16 max min movemask narrow_f32x4_i8
syn keyword eaIntrinsic pack_sat_i16x16 pack_sat_i16x8 pack_sat_i32x4 pack_sat_i32x8 pack_usat_i16x16
syn keyword eaIntrinsic pack_usat_i16x8 pack_usat_i32x4 pack_usat_i32x8 permute_runtime prefetch prefetch_nta
syn keyword eaIntrinsic prefetch_write println ptr_as_f32 ptr_as_f64 ptr_as_i16 ptr_as_i32 ptr_as_i64 ptr_as_i8
syn keyword eaIntrinsic ptr_as_u16 ptr_as_u32 ptr_as_u64 ptr_as_u8 reduce_add reduce_add_fast reduce_max reduce_min
syn keyword eaIntrinsic round_f32x4_i32x4 round_f32x8_i32x8 rsqrt sat_add sat_add_i16x8 sat_add_i8x16 sat_add_u16x8
syn keyword eaIntrinsic sat_add_u8x16 sat_sub sat_sub_i16x8 sat_sub_i8x16 sat_sub_u16x8 sat_sub_u8x16 scatter select
syn keyword eaIntrinsic shuffle shuffle_bytes shuffle_i32x16 shuffle_i32x8 sin_approx_f32 smmla_i32 sqrt store
syn keyword eaIntrinsic store_masked stream_store tanh_approx_f32 to_f16 to_f32 to_f64 to_i16 to_i32 to_i64
syn keyword eaIntrinsic to_i8 to_u8 to_u16 to_u32 to_u64
syn keyword eaIntrinsic ummla_i32 usmmla_i32 vdot_i32 vdot_lane_i32 widen_i8_f32x16 widen_i8_f32x4 widen_i8_f32x4_12
syn keyword eaIntrinsic widen_i8_f32x4_4 widen_i8_f32x4_8 widen_i8_f32x8 widen_u8_f32x16 widen_u8_f32x4
syn keyword eaIntrinsic widen_u8_f32x4_12 widen_u8_f32x4_4 widen_u8_f32x4_8 widen_u8_f32x8 widen_u8_i32x16
syn keyword eaIntrinsic widen_u8_i32x4 widen_u8_i32x4_12 widen_u8_i32x4_4 widen_u8_i32x4_8 widen_u8_i32x8
syn keyword eaIntrinsic widen_u8_u16 widen_u8_u16_hi wmul_i16 wmul_i32 wmul_u16 wmul_u32 wmul_u64 wmul_u64_hi
syn keyword eaIntrinsic wmul_u64_lo

" ---- contextual words: only highlighted where they carry meaning ----
syn match   eaFuncName      "\h\w*" contained
syn match   eaKernel        "\<kernel\ze\s\+\h" nextgroup=eaFuncName skipwhite
syn match   eaKernelWord    "\<over\ze\s\+\h\w*\s\+in\>"
syn match   eaKernelWord    "\<step\ze\s\+\d"
syn match   eaKernelWord    "\<tail\s\+\%(scalar\|mask\|pad\)\>"
syn match   eaAnnotation    "\<out\ze\s\+\h\w*\s*:"
syn match   eaAnnotation    "\[\s*\zscap\ze\s*:"
syn match   eaAnnotation    ",\s*\zscount\ze\s*:"
syn match   eaStaticAssert  "\<static_assert\ze\s*("
syn match   eaAttribute     "#\s*\[[^\]]*\]"

" ---- operators (§1.6); dot-operators are the vector ones ----
syn match   eaOperator      "[-+*/%=<>!&|^]"
syn match   eaOperator      "->\|\.\."
syn match   eaDotOperator   "\.\%(==\|!=\|<=\|>=\|<<\|>>\|[-+*/<>&|^]\)"

" ---- literals (§1.5): no exponents, no suffixes, lowercase 0x/0b only ----
syn match   eaNumber        "\<\d\+"
syn match   eaNumber        "\<0x\x\+"
syn match   eaNumber        "\<0b[01]\+"
syn match   eaFloat         "\<\d\+\.\d\+"
syn match   eaFloat         "\%(\d\)\@<!\.\d\+"
syn region  eaString        start=+"+ end=+"+

" ---- comments: `//` to end of line, no block comments ----
syn keyword eaTodo          TODO FIXME XXX NOTE contained
syn match   eaComment       "//.*$" contains=eaTodo,@Spell

hi def link eaKeyword       Keyword
hi def link eaStorage       StorageClass
hi def link eaConditional   Conditional
hi def link eaRepeat        Repeat
hi def link eaStatement     Statement
hi def link eaBoolean       Boolean
hi def link eaScalarType    Type
hi def link eaVectorType    Type
hi def link eaIntrinsic     Function
hi def link eaFuncName      Function
hi def link eaKernel        StorageClass
hi def link eaKernelWord    Keyword
hi def link eaAnnotation    Special
hi def link eaStaticAssert  Keyword
hi def link eaAttribute     PreProc
hi def link eaOperator      Operator
hi def link eaDotOperator   Operator
hi def link eaNumber        Number
hi def link eaFloat         Float
hi def link eaString        String
hi def link eaTodo          Todo
hi def link eaComment       Comment

let b:current_syntax = 'ea'

let &cpo = s:cpo_save
unlet s:cpo_save
