"""Stand-in for triton.runtime.cache: a FileCacheManager whose dir is
$TRITON_CACHE_DIR/<key> (the real one encodes the key; this one uses it as is)."""
import os


class FileCacheManager(object):
    def __init__(self, key):
        self.key = key
        self.cache_dir = os.path.join(os.environ["TRITON_CACHE_DIR"], key)
        os.makedirs(self.cache_dir, exist_ok=True)  # as the real one does


def get_cache_manager(key):
    return FileCacheManager(key)
