"""Fitted constants of the dense kernel model (chunkviz/cost/kernels.py), written by scripts/fit_cost_model.py.

Invariant: regenerated only by that script from chunkviz/data/a100-dense-ops.csv; edit the script, not the numbers.

Fitted on every public A100 point (vidur operator profiles, 8 models, TP 1/2/4/8, 1-16,384 tokens). Residuals of
the dense time of one layer, predicted / measured - 1, gated models at >= 16 tokens ("before" is the
previous tokens-only roofline):
#   TP 1  before  n= 2041  median   8.4%  p90  16.1%  worst  33.9%  signed median  -8.4%
#   TP 1  after   n= 2041  median   2.5%  p90   7.7%  worst  27.4%  signed median  -1.4%
#   TP 2  before  n= 2041  median   9.8%  p90  18.1%  worst  38.4%  signed median  -9.8%
#   TP 2  after   n= 2041  median   3.0%  p90   8.5%  worst  22.3%  signed median  -0.8%
#   TP 4  before  n= 2041  median  13.6%  p90  23.7%  worst  49.9%  signed median -13.6%
#   TP 4  after   n= 2041  median   3.1%  p90   9.0%  worst  23.5%  signed median  +0.1%
#   TP 8  before  n= 2041  median  21.3%  p90  36.3%  worst  58.5%  signed median -21.3%
#   TP 8  after   n= 2041  median   2.8%  p90   8.5%  worst  20.3%  signed median  -0.2%
#   all   before  n= 8164  median  12.8%  p90  26.9%  worst  58.5%  signed median -12.8%
#   all   after   n= 8164  median   2.9%  p90   8.4%  worst  27.4%  signed median  -0.6%
#   model codellama-34b  after n= 1020  median   2.6%  p90   8.2%  worst  21.1%  signed median  +0.1%
#   model internlm-20b   after n= 1020  median   3.5%  p90  10.0%  worst  22.0%  signed median  +2.1%
#   model llama-2-70b    after n= 1020  median   2.6%  p90   8.0%  worst  18.8%  signed median  -0.2%
#   model llama-2-7b     after n= 1020  median   3.8%  p90   9.8%  worst  23.5%  signed median  -0.2%
#   model llama-3-70b    after n= 1532  median   1.9%  p90   7.0%  worst  18.3%  signed median  -1.1%
#   model llama-3-8b     after n= 1532  median   3.6%  p90   7.6%  worst  22.8%  signed median  -2.5%
#   model phi-2          after n=  255  median   3.6%  p90   9.0%  worst  31.6%  signed median  -1.1%
#   model qwen-72b       after n= 1020  median   2.5%  p90   8.5%  worst  27.4%  signed median  -0.4%
"""

from chunkviz.cost.kernels import DenseConstants

A100_DENSE = DenseConstants(
    qkv_eff=0.7355951697065326,
    o_eff=0.7006055339290762,
    up_eff=0.7609010993865156,
    down_eff=0.7496429185115857,
    m_half_tokens=60.617299982029806,
    n_half=0.0,
    k_half=28.793187979707316,
    gemm_mbu=0.8501874081761952,
    blend=3.3568406066431025,
    qkv_fixed_s=8.032724303085606e-06,
    o_fixed_s=5.1485215852505004e-06,
    up_fixed_s=8.30584510830553e-06,
    down_fixed_s=5.930897333698378e-06,
    norm_bw=0.3737922149163236,
    norm_fixed_s=4.791044901259529e-06,
    rope_bw=0.41263761901597645,
    rope_fixed_s=3.253441867221953e-06,
    act_bw=0.4809149201402547,
    act_fixed_s=3.360484325344875e-06,
    add_bw=0.9134455561231581,
    add_fixed_s=2.2769764932969627e-06,
    elementwise_blend=2.378362432798691,
)
