// The project's CUDA driver API declarations (engine/src/bench/cuda_api.h)
// against the CUDA toolkit's cuda.h: built only where a toolkit is installed
// (tests/engine/CMakeLists.txt), and every check is a static_assert, so a
// declaration that differs from the toolkit's fails the build. Running it
// only says what was compared.
//
// cuda.h maps names to versions with macros (cuMemAlloc -> cuMemAlloc_v2),
// so `::name` below is what the toolkit calls NAME at its CUDA_VERSION while
// `name##_fn`, pasted before expansion, is our declaration of NAME.

#include "cuda_api.h"

#include <cuda.h>

#include <cstdio>
#include <type_traits>

namespace api = cachelens::bench::cuda;

static_assert(CUDA_VERSION >= api::kApiVersion,
              "cuda_api.h is checked against a toolkit at least as new as the version it declares");

namespace {

// Our type spelled as the toolkit's: our enums become cuda.h's, through
// pointers, const and function signatures; every other type stays.
template <typename T>
struct toolkit {
    using type = T;
};
template <typename T>
using toolkit_t = typename toolkit<T>::type;
template <typename T>
struct toolkit<T*> {
    using type = toolkit_t<T>*;
};
template <typename T>
struct toolkit<const T> {
    using type = const toolkit_t<T>;
};
template <typename R, typename... Args>
struct toolkit<R (*)(Args...)> {
    using type = toolkit_t<R> (*)(toolkit_t<Args>...);
};

#define CHECK_ENUMERATOR(name, value)                                                              \
    static_assert(api::name == value && +::name == value, #name " is " #value);                    \
    static_assert(std::is_same_v<toolkit_t<decltype(api::name)>, decltype(::name)>,                \
                  #name " belongs to the same enum as in cuda.h");
#define CHECK_ENUM(type_name, values)                                                              \
    template <>                                                                                    \
    struct toolkit<api::type_name> {                                                               \
        using type = ::type_name;                                                                  \
    };                                                                                             \
    static_assert(sizeof(api::type_name) == sizeof(::type_name) &&                                 \
                      alignof(api::type_name) == alignof(::type_name),                             \
                  #type_name " has cuda.h's size");                                                \
    static_assert(std::is_same_v<std::underlying_type_t<api::type_name>,                           \
                                 std::underlying_type_t<::type_name>>,                             \
                  #type_name " has cuda.h's underlying type");                                     \
    values(CHECK_ENUMERATOR)
CACHELENS_CUDA_ENUMS(CHECK_ENUM)

#define CHECK_TYPE(name)                                                                           \
    static_assert(std::is_same_v<api::name, ::name>, #name " is the same type as in cuda.h");
CACHELENS_CUDA_TYPES(CHECK_TYPE)

#define CHECK_ENTRY_POINT(name)                                                                    \
    static_assert(std::is_same_v<toolkit_t<api::name##_fn>, decltype(&::name)>,                    \
                  #name "_fn has the signature cuda.h gives " #name);
CACHELENS_CUDA_ENTRY_POINTS(CHECK_ENTRY_POINT)
CHECK_ENTRY_POINT(cuGetProcAddress)

} // namespace

int main() {
    std::printf("cuda_api.h (CUDA %d.%d) matches the toolkit's cuda.h (CUDA %d.%d): %s\n",
                api::kApiVersion / 1000, api::kApiVersion % 1000 / 10, CUDA_VERSION / 1000,
                CUDA_VERSION % 1000 / 10, CACHELENS_CUDA_HEADER);
    return 0;
}
