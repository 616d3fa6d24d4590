;;; lsp_tune.el --- lsp-mode (Debian's elpa-lsp-mode) and eals's rewrite code actions and lenses  -*- lexical-binding: t; -*-
;; Run: emacs --batch -l lsp_tune.el (environment: see common.el; EA_DIR
;; holds reductions.ea and reductions.bench.toml, EA_TITLE is the action to pick).
;; lsp-mode declares codeAction resolveSupport (edit, command) and dataSupport:
;; the actions come without their edits and `lsp-execute-code-action' resolves
;; the one picked. The lenses are asked for directly (lsp-lens draws them as
;; overlays only in a displayed window).

(load (expand-file-name "common.el" (file-name-directory load-file-name)) nil t)
(load (expand-file-name "lsp_setup.el" (file-name-directory load-file-name)) nil t)
(require 'lsp-lens)

(defvar ea-lsp-messages nil "Messages of window/showMessage, oldest first.")
(defvar ea-lsp-errors nil "What lsp-mode reported as errors (e.g. a command's timeout).")
(advice-add 'lsp--error :before
            (lambda (format &rest args) (push (apply #'format-message format args) ea-lsp-errors)))
(defvar ea-lsp-progress nil "(TOKEN KIND TITLE-OR-MESSAGE) of each $/progress, oldest first.")
(advice-add 'lsp--window-show-message :before
            (lambda (_workspace params)
              (setq ea-lsp-messages (append ea-lsp-messages (list (gethash "message" params))))))
(let ((shown lsp-progress-function))
  (setq lsp-progress-function
        (lambda (workspace params)
          (let ((value (gethash "value" params)))
            (setq ea-lsp-progress
                  (append ea-lsp-progress
                          (list (list (gethash "token" params) (gethash "kind" value)
                                      (or (gethash "title" value) (gethash "message" value)))))))
          (funcall shown workspace params))))

(defun ea-lsp-lens-click (lenses function title)
  "Run the lens TITLE of FUNCTION as a click on it does (lsp-lens's mouse-1
command); (SECONDS ERROR) the command took and signalled."
  (let* ((lens (cl-find-if (lambda (l) (and (equal (alist-get 'title l) title)
                                            (equal (aref (alist-get 'arguments l) 1) function)))
                           lenses))
         (command (lsp-make-command :title title :command (alist-get 'command lens)
                                    :arguments (alist-get 'arguments lens)))
         (start (float-time))
         (err (condition-case e
                  (progn (funcall (lsp-lens--create-interactive-command command)) nil)
                (error (error-message-string e)))))
    (list (- (float-time) start) err)))

(defun ea-lsp-tune-main ()
  (ea-put "lsp_mode" (ea-package-version 'lsp-mode))
  (let ((dir (file-name-as-directory (getenv "EA_DIR"))))
    (lsp-workspace-folders-add dir)
    (find-file (expand-file-name "reductions.ea" dir)))
  (ea-put "major_mode" (symbol-name major-mode))
  (lsp)
  (ea-wait 15 (lambda () (and (lsp-workspaces)
                              (eq (lsp--workspace-status (car (lsp-workspaces))) 'initialized))))
  (unless (ea-check "connected" (lsp-workspaces) major-mode)
    (error "lsp-mode did not connect"))
  (lsp-notify "workspace/didChangeConfiguration"
              '(:settings (:ea (:target_cpu "haswell" :target_triple "x86_64-unknown-linux-gnu"))))
  ;; 1. The rewrite actions with point on max_f32's `while' (an empty range at
  ;; point); the first answer waits for the machine code.
  (goto-char (point-min))
  (search-forward "func max_f32")
  (search-forward "while")
  (goto-char (match-beginning 0))
  (let* ((actions (ea-wait 60 (lambda () (append (lsp-code-actions-at-point "refactor.rewrite") nil))))
         (chosen (cl-find (getenv "EA_TITLE") actions :key (lambda (a) (gethash "title" a)) :test #'equal)))
    (ea-put "titles" (vconcat (mapcar (lambda (a) (gethash "title" a)) actions)))
    (ea-put "lazy" (if (cl-notany (lambda (a) (gethash "edit" a)) actions) t :json-false))
    ;; 2. Executed as lsp-mode executes a picked action: codeAction/resolve, then the edit.
    (when (ea-check "title offered" chosen (length actions))
      (lsp-execute-code-action chosen)))
  (ea-put "text_after_rewrite" (ea-buffer-text))
  ;; 3. The code lenses of the file.
  (ea-put "lenses"
          (vconcat (mapcar (lambda (lens)
                             (let ((start (gethash "start" (gethash "range" lens)))
                                   (command (gethash "command" lens)))
                               `((line . ,(gethash "line" start)) (character . ,(gethash "character" start))
                                 (title . ,(gethash "title" command)) (command . ,(gethash "command" command))
                                 (arguments . ,(gethash "arguments" command)))))
                           (lsp-request "textDocument/codeLens"
                                        `(:textDocument ,(lsp--text-document-identifier))))))
  ;; 4. The lenses clicked. lsp-mode waits for a command's answer, the editor
  ;; blocked, `lsp-response-timeout' (10 s) at most, then cancels it: the
  ;; answer must come at once, the run going on, finished by a message.
  (let ((lenses (append (gethash "lenses" ea-results) nil)))
    (pcase-let ((`(,seconds ,err) (ea-lsp-lens-click lenses "max_f32" "bench")))
      (ea-put "bench_answer_seconds" seconds)
      (ea-put "bench_error" err)
      (unless (ea-check "bench lens ran" (not (or err ea-lsp-errors)) (or err ea-lsp-errors))
        (error "the bench lens failed")))
    (ea-wait 120 (lambda () (cl-some (lambda (m) (string-prefix-p "ea.bench max_f32:" m)) ea-lsp-messages)))
    (pcase-let ((`(,seconds ,err) (ea-lsp-lens-click lenses "max_f32" "tune")))
      (ea-put "tune_answer_seconds" seconds)
      (ea-put "tune_error" err))
    ;; The tuner runs on: stopped through its progress, once its search began, as a user cancels it.
    (let ((token (ea-wait 60 (lambda () (car (cl-find-if (lambda (p) (string-match-p "search" (or (nth 2 p) "")))
                                                         ea-lsp-progress))))))
      (when (ea-check "tune progress began" token ea-lsp-progress)
        (lsp-notify "window/workDoneProgress/cancel" `(:token ,token))))
    (ea-wait 120 (lambda () (cl-some (lambda (m) (string-prefix-p "ea.tune max_f32:" m)) ea-lsp-messages))))
  (ea-put "errors" (vconcat (reverse ea-lsp-errors)))
  (ea-put "messages" (vconcat ea-lsp-messages))
  (ea-put "progress" (vconcat (mapcar #'vconcat ea-lsp-progress)))
  (goto-char (point-min))
  (search-forward "func max_f32")
  (let ((reply (lsp-request "textDocument/hover" (lsp--text-document-position-params))))
    (ea-put "hover" (if reply (substring-no-properties (lsp--render-on-hover-content (gethash "contents" reply) t))
                      ""))))

(ea-run #'ea-lsp-tune-main)
;;; lsp_tune.el ends here
