"""Timeline: two engines on one workload, on one shared time axis, played in the browser; why each step looks as it
does; what chunking costs in TTFT and how to get it back."""

import streamlit as st

from chunkviz.analysis.metrics import summarize
from ui.components.comparison.mount import render_comparison
from ui.components.comparison.export import html_for
from ui.i18n import current_lang, t
from ui.lecture import lecture_toggle
from ui.components.offline.download import download_view
from ui.runs import trace_or_error
from ui.timeline.downloads import download_buttons
from ui.timeline.lesson import caching_note, scenario_for, settings, ttft_lesson

head = st.columns([4, 1.3], vertical_alignment="center")
with head[1]:
    present = lecture_toggle(t("tlv.present"), t("tlv.present_help"))
head[0].title(t("tl.title"))
if present:
    with st.expander(t("tlv.settings")):
        policy_a, policy_b, budget, threshold = settings()
else:
    policy_a, policy_b, budget, threshold = settings()

trace_a = trace_or_error(scenario_for(policy_a, budget, threshold))
trace_b = trace_or_error(scenario_for(policy_b, budget, threshold))
if trace_a is None or trace_b is None:
    st.stop()
label_a, label_b = t(f"policy.{policy_a}"), t(f"policy.{policy_b}")
mounted = render_comparison([(label_a, trace_a), (label_b, trace_b)], key="timeline", present=present)
offline_file = f"chunkviz-timeline-{policy_a}-vs-{policy_b}"
if not present:  # lecture mode keeps 1280×720 for the timeline: the button waits in the downloads
    download_view(lambda: html_for(mounted, current_lang()), offline_file, "dl_view")
if not present:
    st.markdown(t("tl.lesson"))
m_a, m_b = summarize(trace_a), summarize(trace_b)
ttft_lesson(policy_a, policy_b, budget, threshold, m_a, m_b)
if not present:  # lecture mode keeps 1280×720
    caching_note(policy_a, policy_b, trace_a, trace_b, m_a, m_b)
with st.expander(t("tl.downloads")):
    if present:
        download_view(lambda: html_for(mounted, current_lang()), offline_file, "dl_view")
    download_buttons(trace_b, f"chunkviz-{policy_b}")
