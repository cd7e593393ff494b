"""Texts of the KV stage's offline file: the caption that says which cache the file shows."""

TEXTS = {
    "kvx.cache": ("{blocks} blocks of {size} tokens", "{blocks} 个块，每块 {size} 个 token"),
    "kvx.caching_on": ("prefix caching on", "前缀缓存开启"),
    "kvx.caching_off": ("prefix caching off", "前缀缓存关闭"),
}
