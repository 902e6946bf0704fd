// libFuzzer target: what a Redis server sends back (RESP 2 replies), read by
// the client's own reader (engine/src/remote/resp_reader.h) from a descriptor
// holding the input. Any bytes must give replies or a typed failure, never a
// crash, a hang or memory beyond what arrived (a string is never longer than
// the input, a failure always says which kind).

#include "resp_reader.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cachelens::remote;
    const int fd = ::memfd_create("resp", MFD_CLOEXEC);
    if (fd < 0) {
        return 0;
    }
    for (std::size_t done = 0; done < size;) {
        const ssize_t wrote = ::write(fd, data + done, size - done);
        if (wrote <= 0) {
            ::close(fd);
            return 0;
        }
        done += static_cast<std::size_t>(wrote);
    }
    ::lseek(fd, 0, SEEK_SET);
    RespReader reader(fd);
    RespReply reply;
    // Every reply takes at least 3 bytes ("+\r\n"): more reads than that is a loop.
    for (std::size_t replies = 0;; ++replies) {
        if (replies > size / 3 + 1) {
            __builtin_trap();
        }
        if (!reader.read(reply)) {
            const int why = reader.error_type();
            if (why != REDIS_ERR_EOF && why != REDIS_ERR_IO && why != REDIS_ERR_PROTOCOL) {
                __builtin_trap();
            }
            break;
        }
        if (reply.text.size() > size) {
            __builtin_trap();
        }
    }
    ::close(fd);
    return 0;
}
