"""Texts of the "Download this view" button (one offline HTML file per lesson view; writer.py writes it)."""

TEXTS = {
    "dl.view": ("Download this view (HTML)", "下载此视图（HTML）"),
    "dl.view_help": ("One HTML file that plays this view in a browser with no server and no network: for a "
                     "classroom without the app, a learning platform, or a student offline.",
                     "一个 HTML 文件，无需服务器和网络即可在浏览器中播放此视图：适用于没有本应用的教室、"
                     "学习平台或离线学习的学生。"),
}
