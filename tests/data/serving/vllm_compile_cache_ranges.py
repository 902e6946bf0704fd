{   ((1, 8192), 0, 'inductor_standalone'): (   'artifact_compile_range_1_8192_subgraph_0',
                                               '/root/.cache/vllm/torch_compile_cache/3fbdd5227b/rank_0_0/backbone/artifact_compile_range_1_8192_subgraph_0'),
    ((16, 16), 0, 'inductor_standalone'): (   'artifact_compile_range_16_16_subgraph_0',
                                              '/root/.cache/vllm/torch_compile_cache/3fbdd5227b/rank_0_0/backbone/artifact_compile_range_16_16_subgraph_0'),
    (None, 1, 'eager'): None}