/// A self-contained HTML page around an SVG picture: no network, the picture visible
/// without script, the page's colours following `prefers-color-scheme`. A few lines of
/// script show an item's title and dates next to the pointer (without script, the
/// browser's own tooltip shows them).
enum HTMLPage {
    static func page(svg: String, title: String) -> String {
        let light = Palette.lightScheme, dark = Palette.darkScheme
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <title>\(SVGWriter.escaped(title)) · timeline</title>
            <style>
            html, body { margin: 0; background: \(light.background); color: \(light.text); }
            body { font-family: \(SVGWriter.fontFamily); }
            main { padding: 8px 0; }
            .tl-picture { display: block; max-width: 100%; height: auto; margin: 0 auto; }
            #tl-tip { position: fixed; z-index: 1; pointer-events: none; max-width: 420px; padding: 6px 9px;
              border-radius: 6px; font-size: 13px; line-height: 1.35; background: \(light.text); color: \(light.background);
              box-shadow: 0 2px 10px rgba(0, 0, 0, 0.25); }
            @media (prefers-color-scheme: dark) {
              html, body { background: \(dark.background); color: \(dark.text); }
              #tl-tip { background: \(dark.text); color: \(dark.background); }
            }
            </style>
            </head>
            <body>
            <main>
            \(svg)</main>
            <div id="tl-tip" hidden></div>
            <script>
            (() => {
              const tip = document.getElementById("tl-tip");
              for (const item of document.querySelectorAll(".tl-item")) {
                const title = item.querySelector("title");
                if (!title) continue;
                item.dataset.tip = title.textContent;
                title.remove();
                item.addEventListener("mousemove", (event) => {
                  tip.textContent = item.dataset.tip;
                  tip.hidden = false;
                  const x = Math.min(event.clientX + 14, window.innerWidth - tip.offsetWidth - 8);
                  tip.style.left = Math.max(8, x) + "px";
                  tip.style.top = (event.clientY + 18) + "px";
                });
                item.addEventListener("mouseleave", () => { tip.hidden = true; });
              }
            })();
            </script>
            </body>
            </html>

            """
    }
}
