"""Stand-in for triton in cachelens's tune_compile test."""

__version__ = "3.5.1"


class Config(object):
    """triton.Config's real signature (Triton 3.5); it only stores the values."""

    def __init__(self, kwargs, num_warps=4, num_stages=2, num_ctas=1,
                 num_buffers_warp_spec=0, num_consumer_groups=0,
                 reg_dec_producer=0, reg_inc_consumer=0, maxnreg=None,
                 pre_hook=None, ir_override=None):
        self.kwargs = kwargs
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.num_buffers_warp_spec = num_buffers_warp_spec
        self.num_consumer_groups = num_consumer_groups
        self.reg_dec_producer = reg_dec_producer
        self.reg_inc_consumer = reg_inc_consumer
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook
        self.ir_override = ir_override

    def __repr__(self):
        return "Config(%s, num_warps=%r, num_stages=%r, num_ctas=%r, maxnreg=%r)" % (
            ", ".join("%s=%r" % kv for kv in sorted(self.kwargs.items())),
            self.num_warps, self.num_stages, self.num_ctas, self.maxnreg)
