{   (None, 0, 'inductor'): (   'feorwmj2xdtwpofkcuc6fdnluv2auo3zbui7xy2qcncgy2qnvds6',
                               '/home/vllm/.cache/vllm/torch_compile_cache/d4ec7c2a7d/rank_0_0/inductor_cache/sy/csydsib3zoojnddissy5psapld25ic346gbdsibkekh6pid6bevv.py'),
    (None, 1, 'inductor'): (   'fihfzkdily6bpw73zhhfvyx7i7syj2bh2z73lj5bgrbq3ty5mkpv',
                               '/home/vllm/.cache/vllm/torch_compile_cache/d4ec7c2a7d/rank_0_0/inductor_cache/df/cdfqwrxmstxseesfef72s74nawkkh3iyiu6k7rg5kdhvmg7736qb.py')}