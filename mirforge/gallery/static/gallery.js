// mirforge gallery: reveal the answer on click; toggle every region box.
(function () {
  "use strict";
  document.addEventListener("click", function (event) {
    var button = event.target.closest("button.option");
    if (!button) return;
    var article = button.closest("article.instance");
    var answer = article.getAttribute("data-answer");
    article.classList.add("revealed");
    article.querySelectorAll("button.option").forEach(function (option) {
      var letter = option.getAttribute("data-letter");
      option.classList.toggle("correct", letter === answer);
      option.classList.toggle("wrong", option === button && letter !== answer);
    });
    article.querySelector(".answer").hidden = false;
  });
  document.querySelectorAll("input.show-boxes").forEach(function (box) {
    box.addEventListener("change", function () {
      document.body.classList.toggle("show-boxes", box.checked);
      document.querySelectorAll("input.show-boxes").forEach(function (other) { other.checked = box.checked; });
    });
  });
})();
