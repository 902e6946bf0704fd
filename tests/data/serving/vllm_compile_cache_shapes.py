{   (8, 0, 'inductor_standalone'): (   'artifact_shape_8_subgraph_0',
                                       '/root/.cache/vllm/torch_compile_cache/64625fd5e0/rank_0_0/backbone/artifact_shape_8_subgraph_0'),
    (None, 0, 'inductor_standalone'): (   'artifact_shape_None_subgraph_0',
                                          '/root/.cache/vllm/torch_compile_cache/64625fd5e0/rank_0_0/backbone/artifact_shape_None_subgraph_0')}