"""Fitted constants of the dense kernel model (cost/kernels.py), written by scripts/fit_cost_model.py.

Invariant: regenerated only by that script from chunkviz/data/a100-dense-ops.csv; edit the script, not the numbers.

Fitted on every public A100 point (vidur operator profiles, 8 models, TP 1/2/4/8, 1-16,384 tokens). Residuals of
the dense time of one layer, predicted / measured - 1, gated models at >= 16 tokens ("before" is the
previous tokens-only roofline):
    TP 1  before  n= 2041  median   8.4%  p90  16.1%  worst  33.9%  signed median  -8.4%
    TP 1  after   n= 2041  median   2.5%  p90   7.7%  worst  27.4%  signed median  -1.4%
    TP 2  before  n= 2041  median   9.8%  p90  18.1%  worst  38.4%  signed median  -9.8%
    TP 2  after   n= 2041  median   3.0%  p90   8.5%  worst  22.3%  signed median  -0.8%
    TP 4  before  n= 2041  median  13.6%  p90  23.7%  worst  49.9%  signed median -13.6%
    TP 4  after   n= 2041  median   3.1%  p90   9.0%  worst  23.5%  signed median  +0.1%
    TP 8  before  n= 2041  median  21.3%  p90  36.3%  worst  58.5%  signed median -21.3%
    TP 8  after   n= 2041  median   2.8%  p90   8.5%  worst  20.3%  signed median  -0.2%
    all   before  n= 8164  median  12.8%  p90  26.9%  worst  58.5%  signed median -12.8%
    all   after   n= 8164  median   2.9%  p90   8.4%  worst  27.4%  signed median  -0.6%
    model codellama-34b  after n= 1020  median   2.6%  p90   8.2%  worst  21.1%  signed median  +0.1%
    model internlm-20b   after n= 1020  median   3.5%  p90  10.0%  worst  22.0%  signed median  +2.1%
    model llama-2-70b    after n= 1020  median   2.6%  p90   8.0%  worst  18.8%  signed median  -0.2%
    model llama-2-7b     after n= 1020  median   3.8%  p90   9.8%  worst  23.5%  signed median  -0.2%
    model llama-3-70b    after n= 1532  median   1.9%  p90   7.0%  worst  18.3%  signed median  -1.1%
    model llama-3-8b     after n= 1532  median   3.6%  p90   7.6%  worst  22.8%  signed median  -2.5%
    model phi-2          after n=  255  median   3.6%  p90   9.0%  worst  31.6%  signed median  -1.1%
    model qwen-72b       after n= 1020  median   2.5%  p90   8.5%  worst  27.4%  signed median  -0.4%
    LOO model_id=codellama-34b       n= 1020  median   2.6%  p90   8.3%  worst  21.3%  signed median  +0.3%
    LOO model_id=internlm-20b        n= 1020  median   3.5%  p90  10.5%  worst  23.0%  signed median  +2.5%
    LOO model_id=llama-2-70b         n= 1020  median   2.7%  p90   8.2%  worst  19.2%  signed median  -0.2%
    LOO model_id=llama-2-7b          n= 1020  median   3.8%  p90  10.0%  worst  23.6%  signed median  -0.0%
    LOO model_id=llama-3-70b         n= 1532  median   1.9%  p90   7.4%  worst  19.0%  signed median  -1.3%
    LOO model_id=llama-3-8b          n= 1532  median   4.2%  p90   7.8%  worst  22.8%  signed median  -3.3%
    LOO model_id=qwen-72b            n= 1020  median   2.5%  p90   8.6%  worst  29.3%  signed median  -0.4%
    LOO model_id=pooled              n= 8164  median   3.0%  p90   8.6%  worst  29.3%  signed median  -0.6%
    LOO tensor_parallel=1            n= 2041  median   2.6%  p90   7.8%  worst  28.3%  signed median  -1.6%
    LOO tensor_parallel=2            n= 2041  median   3.1%  p90   8.4%  worst  22.4%  signed median  -1.0%
    LOO tensor_parallel=4            n= 2041  median   3.1%  p90   9.1%  worst  23.3%  signed median  +0.4%
    LOO tensor_parallel=8            n= 2041  median   2.8%  p90   8.7%  worst  20.1%  signed median  +0.2%
    LOO tensor_parallel=pooled       n= 8164  median   2.9%  p90   8.6%  worst  28.3%  signed median  -0.6%
"""

from chunkviz.cost.kernels import DenseConstants

A100_DENSE = DenseConstants(
    qkv_eff=0.7355951698766822,
    o_eff=0.7006055342845479,
    up_eff=0.7609010995343737,
    down_eff=0.7496429186584675,
    m_half_tokens=60.61730005215174,
    k_half=28.793188872011164,
    gemm_mbu=0.8501874079986859,
    blend=3.3568406107385185,
    qkv_fixed_s=8.032724300625175e-06,
    o_fixed_s=5.1485215782320574e-06,
    up_fixed_s=8.305845097572892e-06,
    down_fixed_s=5.930897326209791e-06,
    norm_bw=0.3737922167127753,
    norm_fixed_s=4.791044903100875e-06,
    rope_bw=0.41263762194978587,
    rope_fixed_s=3.2534418131447054e-06,
    act_bw=0.4809149210294024,
    act_fixed_s=3.3604841961445742e-06,
    add_bw=0.9134455600158092,
    add_fixed_s=2.2769765403436455e-06,
    elementwise_blend=2.378361992721496,
)

# Leave-one-out: held-out model or TP -> (points, median |error|, p90, worst, signed median) of its dense time.
HELD_OUT: dict[str, tuple[int, float, float, float, float]] = {
    'model_id=codellama-34b': (1020, 0.0264, 0.0826, 0.2132, 0.0032),
    'model_id=internlm-20b': (1020, 0.0354, 0.1051, 0.2301, 0.0246),
    'model_id=llama-2-70b': (1020, 0.0269, 0.0818, 0.1917, -0.0017),
    'model_id=llama-2-7b': (1020, 0.0379, 0.0999, 0.2356, -0.0005),
    'model_id=llama-3-70b': (1532, 0.0193, 0.0740, 0.1901, -0.0127),
    'model_id=llama-3-8b': (1532, 0.0418, 0.0780, 0.2282, -0.0332),
    'model_id=qwen-72b': (1020, 0.0253, 0.0858, 0.2934, -0.0039),
    'model_id=pooled': (8164, 0.0297, 0.0864, 0.2934, -0.0062),
    'tensor_parallel=1': (2041, 0.0265, 0.0785, 0.2834, -0.0163),
    'tensor_parallel=2': (2041, 0.0307, 0.0840, 0.2238, -0.0098),
    'tensor_parallel=4': (2041, 0.0315, 0.0911, 0.2334, 0.0039),
    'tensor_parallel=8': (2041, 0.0283, 0.0872, 0.2009, 0.0024),
    'tensor_parallel=pooled': (8164, 0.0292, 0.0858, 0.2834, -0.0059),
}
