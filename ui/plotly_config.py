"""Plotly's own strings in the page's language: every st.plotly_chart passes `chart_config()`, which on a 中文 page
sets Plotly's locale to zh-CN and carries that locale's dictionary, so the mode bar's buttons (their hover tooltip,
drawn from `data-title`, and their `aria-label`) and Plotly's notices ("Double-click to zoom back out") read in 中文.

Why the dictionary travels in the config: st.plotly_chart hands `config` to Plotly.js as given (Streamlit's
PlotlyChart drops only mapboxAccessToken and adds its own buttons; streamlit 1.67 frontend, PlotlyChart chunk), and
its Plotly.js bundle registers no locale but English, so `locale: "zh-CN"` alone would fall back to English.
Plotly.js looks a string up in `config.locales[locale].dictionary` before its registry (src/lib/localize.js).
Streamlit's own "Fullscreen" button has a fixed English title; ui/widgets.py's 中文 CSS draws its tooltip in 中文.

Lecture mode (`lecture_fonts`): every chart's type grows to what a projector needs (ticks ≥ 14 px, every other text
≥ 16 px), never shrinks; a size the chart already sets larger is kept.

Invariant: an English page gets exactly the config it asked for; a 中文 page the same plus locale and dictionary.
"""

from __future__ import annotations

import math

import plotly.graph_objects as go

from ui.i18n import current_lang

# The mode bar's titles and Plotly's notices, as plotly.js lib/locales/zh-cn.js words them (plotly/plotly.js at
# 0883ffd55cd1c95e9e6e38893ff072735889d1bb); only the strings a 2-D chart here can show, the 3-D / geo ones left out,
# "Toggle Spike Lines" without its English gloss "(Spike Lines)", and the PNG key as Plotly.js 4 spells it.
ZH_CN: dict[str, str] = {
    "Autoscale": "自动缩放",
    "Box Select": "矩形框选",
    "Compare data on hover": "悬停时比较数据",
    "Double-click on legend to isolate one trace": "双击图例来突显对应轨迹",
    "Double-click to zoom back out": "双击返回缩小显示",
    "Download plot as a png": "下载图表为PNG格式",
    "Download plot as a PNG": "下载图表为PNG格式",  # the key's spelling in Plotly.js 4 (Streamlit 1.67's bundle)
    "Download plot": "下载图表",
    "Lasso Select": "套索选择",
    "Pan": "平移",
    "Reset": "重置",
    "Reset axes": "重置轴",
    "Show closest data on hover": "悬停时显示最近的数据",
    "Snapshot succeeded": "生成快照成功",
    "Sorry, there was a problem downloading your snapshot!": "抱歉，下载快照出现问题！",
    "Taking snapshot - this may take a few seconds": "正在生成快照 - 可能需要几秒钟",
    "Toggle Spike Lines": "切换显示数据点辅助线",
    "Toggle show closest data on hover": "切换悬停时显示最近的数据点",
    "Zoom": "缩放",
    "Zoom in": "放大",
    "Zoom out": "缩小",
}


def chart_config(**config: object) -> dict:
    """The `config` for st.plotly_chart: `config` as given, plus the zh-CN locale on a 中文 page."""
    if current_lang() != "zh":
        return dict(config)
    return {**config, "locale": "zh-CN", "locales": {"zh-CN": {"dictionary": ZH_CN}}}


TICK_MIN_PX = 14  # lecture mode: tick labels (issue 35: "Plotly ticks ≥ 14 px")
TEXT_MIN_PX = 16  # lecture mode: every other text of a chart (titles, legend, annotations, bar labels, hover)


def _at_least(size: float | None, floor: int) -> int | float:
    return floor if size is None else max(size, floor)


def lecture_fonts(figure: go.Figure, tick_px: int = TICK_MIN_PX, text_px: int = TEXT_MIN_PX) -> go.Figure:
    """`figure` itself, its type raised to the floors in lecture mode (`?present=1`), as it is otherwise."""
    from ui.lecture import FLAG
    import streamlit as st

    if not st.session_state.get(FLAG, False):
        return figure
    lay = figure.layout
    figure.update_layout(font_size=_at_least(lay.font.size, text_px),
                         legend_font_size=_at_least(lay.legend.font.size, text_px),
                         hoverlabel_font_size=_at_least(lay.hoverlabel.font.size, text_px))
    if lay.title.text:
        figure.update_layout(title_font_size=_at_least(lay.title.font.size, text_px))
    for axis in (*figure.select_xaxes(), *figure.select_yaxes()):
        # A log axis draws the digits between its decades ("2", "5") at 3/4 of the tick size: those too ≥ tick_px.
        floor = math.ceil(tick_px / 0.75) if axis.type == "log" else tick_px
        axis.update(tickfont_size=_at_least(axis.tickfont.size, floor),
                    title_font_size=_at_least(axis.title.font.size, text_px))
    figure.for_each_annotation(lambda a: a.update(font_size=_at_least(a.font.size, text_px)))
    for trace in figure.data:
        if "textfont" in trace:
            trace.update(textfont_size=_at_least(trace.textfont.size, text_px))
    return figure
