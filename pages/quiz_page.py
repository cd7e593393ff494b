"""Quiz: common misconceptions; each answer is demonstrated by running the project's code (chunkviz.lessons.quiz)."""

import inspect

import streamlit as st

from chunkviz.lessons.quiz import OPTIONS, QUESTIONS, QuizEvidence
from ui.quiz.charts import evidence_figure
from ui.fmt import si
from ui.i18n import labeler, t
from ui.plain import md_escape
from ui.plotly_config import chart_config, lecture_fonts

SI_UNITS = {"flops": "FLOP", "bytes": "B"}
FIGURES_PER_ROW = 3


@st.cache_data(max_entries=16, show_spinner=False)
def evidence(question_id: str) -> QuizEvidence:
    return QUESTIONS[question_id]()


def figure_text(value: float, unit: str) -> str:
    return si(value, SI_UNITS[unit]) if unit in SI_UNITS else t(f"qz.unit.{unit}", v=value)


def show_evidence(question_id: str, answer: str, ev: QuizEvidence) -> None:
    if answer == ev.correct_option:
        st.success(t("qz.right"))
    else:
        st.error(t("qz.wrong", answer=t(f"qz.opt.{question_id}.{ev.correct_option}")))
    st.caption(t(f"qz.how.{question_id}"))
    for start in range(0, len(ev.figures), FIGURES_PER_ROW):
        for col, fig in zip(st.columns(FIGURES_PER_ROW), ev.figures[start:start + FIGURES_PER_ROW]):
            col.metric(t(f"qz.fig.{fig.label_key}"), figure_text(fig.value, fig.unit))
    chart = evidence_figure(ev.figures, {f.label_key: t(f"qz.fig.{f.label_key}") for f in ev.figures})
    if chart is not None:
        st.plotly_chart(lecture_fonts(chart), width="stretch", key=f"qz_chart_{question_id}", config=chart_config())
    st.markdown(t(f"qz.explain.{question_id}"))
    with st.expander(t("qz.how_title")):
        st.code(inspect.getsource(QUESTIONS[question_id]), language="python")


st.title(t("qz.title"))
st.markdown(t("qz.lesson"))
score = st.empty()
num_answered = num_right = 0
for number, question_id in enumerate(QUESTIONS, start=1):
    with st.container(border=True):
        st.markdown(f"#### {number}. {t(f'qz.q.{question_id}')}")
        answer = st.radio(t("qz.pick"), OPTIONS[question_id], index=None, key=f"qz_q{number}",
                          format_func=labeler(f"qz.opt.{question_id}."), label_visibility="collapsed")
        if answer is None:
            continue
        try:
            ev = evidence(question_id)
        except (ValueError, RuntimeError) as exc:  # a broken module shows a message, not a traceback
            st.error(t("err.config", error=md_escape(exc)))
            continue
        num_answered, num_right = num_answered + 1, num_right + (answer == ev.correct_option)
        show_evidence(question_id, answer, ev)
score.info(t("qz.score", answered=num_answered, total=len(QUESTIONS), right=num_right))
