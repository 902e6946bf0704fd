// libFuzzer target: what vLLM, SGLang and standalone compile write
// (serving/): the first byte picks the reader: 0 the index
// (vllm_compile_cache.py, a Python literal), 1 cache_key_factors.json (then
// the dir name recomputed from it), 2 a CompiledArtifact binary file (then
// each artifact of its bundle judged as an import judges it), 3 a pack's
// manifest, 4 a rank dir's and an artifact's name. Each gives a value or an
// Error on any bytes, never a crash; what it gives is walked.

#include <cachelens/bundle/compiled_artifact.h>
#include <cachelens/bundle/import.h>
#include <cachelens/serving/cache_factors.h>
#include <cachelens/serving/compile_index.h>
#include <cachelens/serving/pack.h>
#include <cachelens/serving/serving_tree.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cachelens;
    if (size == 0) {
        return 0;
    }
    const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
    switch (data[0] % 5) {
    case 0:
        if (auto index = serving::parse_compile_index(bytes)) {
            for (const auto& entry : index->entries) {
                (void)entry.shape.describe();
                (void)entry.shape.artifact_part();
                (void)entry.shape.covers(8192);
            }
        }
        break;
    case 1:
        if (auto factors = serving::parse_cache_key_factors(bytes)) {
            (void)serving::recompute_hash_dir_name(*factors);
            (void)factors->env_value("VLLM_ATTENTION_BACKEND");
        }
        break;
    case 2:
        if (auto artifact = bundle::decode_compiled_artifact(bytes); artifact && artifact->bundle) {
            for (const auto& section : artifact->bundle->sections) {
                for (const auto& item : section.artifacts) {
                    (void)bundle::check_artifact(section.type, item.key, item.content.view());
                }
            }
        }
        break;
    case 3:
        if (auto manifest = serving::parse_manifest(bytes)) {
            (void)serving::manifest_json(*manifest);
        }
        break;
    default:
        (void)serving::parse_rank_dir_name(bytes);
        (void)serving::parse_artifact_name(bytes);
        (void)serving::classify_serving_path(bytes);
        break;
    }
    return 0;
}
